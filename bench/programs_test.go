package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"k8s.io/client-go/kubernetes"
)

// Every contender of every part runs in one of the programs.
func TestEveryContenderHasAProgram(t *testing.T) {
	for _, cs := range [][]driver.Contender{contenders, crdContenders, warmContenders, serverContenders, waveContenders, projContenders, projCRDContenders,
		metaContenders, unstructuredContenders} {
		for _, c := range cs {
			p, err := programOf(c.Name)
			if err != nil || !slices.Contains(programNames, p) {
				t.Errorf("%s: program %q, %v", c.Name, p, err)
			}
		}
	}
	for name, want := range map[string]string{keepAll: progFloor, clientGoWatchNoGzip: progClientGo, clientGoStrip: progClientGo,
		oursProjected: progOurs, crCache: progCRCache, crCache + noGzip: progCRCache, crSyncer: progCRSyncer,
		oursMetadata: progDynamic, oursUnstructured: progDynamic, clientGoMetadata + noGzip: progClientGo, clientGoDynamic: progClientGo,
		crMetadata: progCRCache, crMetadata + noGzip: progCRCache} {
		if got, _ := programOf(name); got != want {
			t.Errorf("programOf(%s) = %s, want %s", name, got, want)
		}
	}
	if _, err := programOf("nope"); err == nil {
		t.Error("programOf of an unknown contender: no error")
	}
}

// Each program links what its kind of program imports and not what the
// others do: a contender's RSS holds its own code, no other's.
func TestProgramsLinkOnlyTheirKind(t *testing.T) {
	const (
		informers = "k8s.io/client-go/informers/core/v1"
		clientset = "k8s.io/client-go/kubernetes"
		crCache   = "sigs.k8s.io/controller-runtime/pkg/cache"
		runtime   = module + "/runtime"
		ctrl      = module + "/ctrlsyncer"
		dynamic   = module + "/dynamicsyncer"
		generated = module + "/examples/builtin/syncers/core/v1"
	)
	rules := map[string]struct{ has, hasNot []string }{
		progFloor:    {has: []string{"k8s.io/api/core/v1"}, hasNot: []string{informers, clientset, crCache, runtime}},
		progOurs:     {has: []string{runtime, generated}, hasNot: []string{informers, clientset, crCache, dynamic}},
		progDynamic:  {has: []string{runtime, dynamic}, hasNot: []string{informers, clientset, crCache, generated}},
		progClientGo: {has: []string{informers, clientset, "k8s.io/client-go/metadata/metadatainformer", "k8s.io/client-go/dynamic/dynamicinformer"}, hasNot: []string{crCache, runtime}},
		progCRCache:  {has: []string{crCache}, hasNot: []string{runtime, ctrl}},
		progCRSyncer: {has: []string{crCache, runtime, ctrl}},
		progBuiltin:  {has: []string{runtime}, hasNot: []string{informers, clientset, crCache}},
	}
	args := []string{"list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}"}
	for _, p := range programNames {
		args = append(args, programPackage(p))
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	for _, p := range programNames {
		d, ok := deps[programPackage(p)]
		if !ok {
			t.Errorf("go list said nothing of %s", programPackage(p))
			continue
		}
		for _, pkg := range rules[p].has {
			if !slices.Contains(d, pkg) {
				t.Errorf("program %s does not link %s", p, pkg)
			}
		}
		for _, pkg := range rules[p].hasNot {
			if slices.Contains(d, pkg) {
				t.Errorf("program %s links %s", p, pkg)
			}
		}
	}
}

// Against a real server, the contenders run in programs of their own: each
// reports its peak RSS and RssAnon, idle (on an empty namespace) and on 200
// ConfigMaps of 20 KB; the data adds to RssAnon; client-go's program holds
// more than the floors' before any object (its clientset and informers).
// The node agent (examples/builtin) syncs its node's pods and none, and
// exits 0 once interrupted. The metadata part's contenders sync the same
// ConfigMaps, each reading under 5% of the full syncer's bytes, and the
// unstructured ones sync them too; kube-apiserver's CPU is measured for
// each run.
func TestContendersRunInTheirOwnPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the programs and starts etcd and kube-apiserver; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv := testbed.Start(t)
	dir := t.TempDir()
	bins, err := buildPrograms(ctx, filepath.Join(dir, "bin"), []string{progFloor, progOurs, progClientGo, progBuiltin, progDynamic, progCRCache})
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	o, err := parseOptions([]string{"-n", "200", "-size", "20000", "-rounds", "1", "-agent-pods", "20", "-workers", "8"})
	if err != nil {
		t.Fatal(err)
	}
	b := &bench{o: o, bins: bins, kubeconfig: kubeconfig, cs: cs, res: resources[o.resource], cfg: srv.Config(), dir: dir}
	if err := populate(ctx, cs, cs.CoreV1().RESTClient(), o, b.res); err != nil {
		t.Fatal(err)
	}
	if err := createNamespace(ctx, cs, idleNamespace); err != nil {
		t.Fatal(err)
	}
	idle := map[string]driver.Result{}
	for _, name := range []string{keepAll, ours, clientGoWatch} {
		c, _ := contenderByName(name)
		i, err := b.runIdle(ctx, c)
		if err != nil {
			t.Fatalf("%s idle: %v", name, err)
		}
		r, err := b.runOne(ctx, c, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		idle[name] = i
		if !i.Idle || i.Sync.Objects != 0 || r.Sync.Objects != o.n {
			t.Errorf("%s: idle run synced %d objects (Idle %v), the other %d", name, i.Sync.Objects, i.Idle, r.Sync.Objects)
		}
		for _, x := range []driver.Result{i, r} {
			if x.AnonBytes <= 0 || x.AnonBytes >= x.Sync.HWMBytes {
				t.Errorf("%s: peak RssAnon %d B, peak RSS %d B", name, x.AnonBytes, x.Sync.HWMBytes)
			}
		}
		if d := r.AnonBytes - i.AnonBytes; d < 3*driver.MiB {
			t.Errorf("%s: 200 ConfigMaps of 20 KB added %.1f MiB to RssAnon", name, float64(d)/driver.MiB)
		}
	}
	if d := idle[clientGoWatch].Sync.HWMBytes - idle[keepAll].Sync.HWMBytes; d < 5*driver.MiB {
		t.Errorf("idle: client-go's program peaks %.1f MiB over the floors'", float64(d)/driver.MiB)
	}

	mb := *b
	mb.measureServer = true
	if mb.servers, mb.apiserver = driver.ServerPIDs(); mb.apiserver == 0 {
		t.Fatal("kube-apiserver's process not found")
	}
	read := map[string]int64{}
	for _, c := range slices.Concat(metaContenders, unstructuredContenders) {
		if strings.HasSuffix(c.Name, noGzip) {
			continue
		}
		r, err := mb.runOne(ctx, c, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if r.Sync.Objects != o.n || r.Server == nil || r.Server.CPU <= 0 || r.Server.AllocatedBytes <= 0 {
			t.Errorf("%s: %d objects, apiserver cost %+v", c.Name, r.Sync.Objects, r.Server)
		}
		read[c.Name] = r.Sync.BytesRead
	}
	for _, name := range []string{oursMetadata, oursProjected, clientGoMetadata, crMetadata} {
		if read[name] <= 0 || read[name] > read[ours]/20 {
			t.Errorf("%s read %d B from the server, the full syncer %d", name, read[name], read[ours])
		}
	}

	agents, err := b.agentRounds(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 2 || agents[0].pods != 0 || agents[1].pods != 20 {
		t.Fatalf("node agent runs: %+v", agents)
	}
	for _, a := range agents {
		if a.mode != "list" || a.anon <= 0 || a.fileRSS <= 0 || a.anon+a.fileRSS > a.peak+driver.MiB {
			t.Errorf("node agent on %d pods: %+v", a.pods, a)
		}
	}
}
