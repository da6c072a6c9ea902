package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/mod/semver"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"k8s.io/client-go/kubernetes"
)

// benchMain runs the whole benchmark.
func benchMain(args []string) error {
	o, err := parseOptions(args)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second interrupt kills at once; the kernel then ends every child
	}()
	if o.profileDir != "" {
		if err := os.MkdirAll(o.profileDir, 0o755); err != nil {
			return err
		}
	}
	res := resources[o.resource]
	setup := describeSetup(o)
	fmt.Fprintln(os.Stderr, setup)

	dir, err := os.MkdirTemp("", "syncer-gen-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, err := buildPrograms(ctx, filepath.Join(dir, "bin"), programNames)
	if err != nil {
		return err
	}
	srv, err := launch(ctx, dir, o)
	if err != nil {
		return err
	}
	defer func() {
		fmt.Fprintln(os.Stderr, "stopping kube-apiserver and etcd")
		srv.Stop()
	}()
	server, err := describeServer(ctx, srv, o.namespace)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, server)
	setup += "\n" + server
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(protobufConfig(srv.Config()))
	if err != nil {
		return err
	}
	if err := populate(ctx, cs, cs.CoreV1().RESTClient(), o, res); err != nil {
		return err
	}
	if err := createNamespace(ctx, cs, idleNamespace); err != nil {
		return err
	}
	b := &bench{o: o, bins: bins, kubeconfig: kubeconfig, cs: cs, res: res, cfg: srv.Config(), srv: srv, dir: dir, pop: newPopulation(o.n)}
	b.servers, b.apiserver = driver.ServerPIDs()
	if len(b.servers) != 2 {
		fmt.Fprintf(os.Stderr, "warning: found %d of the test bed's 2 processes; not waiting for them to go idle between runs\n", len(b.servers))
		b.servers = nil
	}
	for i := range o.warmup {
		fmt.Fprintf(os.Stderr, "warm-up %d/%d: %s\n", i+1, o.warmup, floorRead)
		c, _ := contenderByName(floorRead)
		if _, err := b.runOne(ctx, c, 0); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	var out outcome
	// failed reports the parts that finished before part failed, so that
	// an hour's run is not lost to its last part, and names the part.
	failed := func(part string, err error) error {
		out.pods = o.n
		report(os.Stdout, setup, out)
		return fmt.Errorf("part %s: %w (the parts before it are reported above)", part, err)
	}
	if o.runs(partContenders) {
		var cs []driver.Contender
		for _, name := range o.contenders {
			c, _ := contenderByName(name)
			cs = append(cs, c)
		}
		if out.main, err = b.runRounds(ctx, "", cs); err != nil {
			return failed(partContenders, err)
		}
		out.names = o.contenders
	}
	if o.runs(partServerCost) {
		if out.server, err = b.serverCostRounds(ctx); err != nil {
			return failed(partServerCost, err)
		}
		out.clients = o.clients
	}
	if o.runs(partCRD) {
		if out.crd, err = b.crdRounds(ctx); err != nil {
			return failed(partCRD, err)
		}
	}
	if o.runs(partWarm) {
		if out.warm, err = b.warmRounds(ctx); err != nil {
			return failed(partWarm, err)
		}
	}
	if o.runs(partShard) {
		if out.shards, err = b.shardRounds(ctx); err != nil {
			return failed(partShard, err)
		}
	}
	if o.runs(partWave) || o.runs(partRestart) {
		if err := b.populatePods(ctx); err != nil {
			return failed(partWave+" and "+partRestart+" (their pods)", err)
		}
		out.agents = o.agents
	}
	if o.runs(partWave) {
		if out.waves, err = b.waveRounds(ctx); err != nil {
			return failed(partWave, err)
		}
	}
	if o.runs(partRestart) {
		if out.restarts, err = b.restartRounds(ctx); err != nil {
			return failed(partRestart, err)
		}
	}
	if o.runs(partFleet) {
		if o.resource != "configmaps" {
			return fmt.Errorf("the fleet part syncs configmaps, not %s", o.resource)
		}
		if out.fleet, err = b.fleetRounds(ctx); err != nil {
			return failed(partFleet, err)
		}
	}
	if o.runs(partProjection) {
		if out.projection, err = b.projectionRounds(ctx); err != nil {
			return failed(partProjection, err)
		}
	}
	if o.runs(partMetadata) {
		if out.metadata, err = b.metadataRounds(ctx); err != nil {
			return failed(partMetadata, err)
		}
	}
	if o.runs(partConsistency) {
		if out.consistency, err = b.consistencyRounds(ctx); err != nil {
			return failed(partConsistency, err)
		}
	}
	if o.runs(partLag) {
		if out.lag, err = b.lagRounds(ctx); err != nil {
			return failed(partLag, err)
		}
	}
	if o.runs(partNamed) {
		if out.named, err = b.namedRounds(ctx); err != nil {
			return failed(partNamed, err)
		}
	}
	out.pods = o.n
	report(os.Stdout, setup, out)
	if o.charts != "" && o.profileDir == "" {
		run := append([]string{"run of " + time.Now().UTC().Format("2006-01-02 15:04 UTC")}, strings.Split(setup, "\n")...)
		if err := writeCharts(o.charts, run, out); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "charts of the parts that ran: %s\n", filepath.Join(o.charts, "bench-<part>.svg"))
	}
	return nil
}

// runRounds runs every contender of cs once on an empty namespace (an
// idle run), then once per round, one at a time, each once the servers are
// idle; label starts its progress lines.
func (b *bench) runRounds(ctx context.Context, label string, cs []driver.Contender) ([]driver.Result, error) {
	var rs []driver.Result
	for _, c := range cs {
		if err := b.quiesce(ctx, c.Name); err != nil {
			return nil, err
		}
		r, err := b.runIdle(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%sidle, %s: %w", label, c.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%sidle %s\n", label, describeResult(r))
		rs = append(rs, r)
	}
	for round := 1; round <= b.o.rounds; round++ {
		for _, c := range roundOrder(cs, round) {
			if err := b.quiesce(ctx, c.Name); err != nil {
				return nil, err
			}
			r, err := b.runOne(ctx, c, round)
			if err != nil {
				return nil, fmt.Errorf("%sround %d, %s: %w", label, round, c.Name, err)
			}
			fmt.Fprintf(os.Stderr, "%sround %d/%d %s\n", label, round, b.o.rounds, describeResult(r))
			rs = append(rs, r)
		}
	}
	return rs, nil
}

// quiesce waits for the servers to go idle before running what.
func (b *bench) quiesce(ctx context.Context, what string) error {
	waited, idle, err := driver.Quiesce(ctx, b.servers)
	if err == nil && !idle && b.servers != nil {
		fmt.Fprintf(os.Stderr, "warning: etcd and kube-apiserver still busy after %s; running %s anyway\n", waited.Round(time.Millisecond), what)
	}
	return err
}

// roundOrder returns the contenders of a round: every round runs all of
// them, the first in the order given, later ones in an order shuffled with
// the round as seed, so that no contender always follows the same one and
// a run can be repeated.
func roundOrder[T any](names []T, round int) []T {
	out := append([]T(nil), names...)
	if round > 1 {
		rand.New(rand.NewPCG(uint64(round), 0)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	}
	return out
}

func describeSetup(o options) string {
	return fmt.Sprintf("setup: %d %s of %d B payload in namespace %q; %d rounds; steady state %d updates/s (at most %d in flight) for %s over %d objects; "+
		"GOMAXPROCS=%d GOGC=%s; %d CPUs; %s",
		o.n, o.resource, o.size, o.namespace, o.rounds, o.rate, o.steadyWriters, o.duration, min(o.steadyPool, o.n),
		goruntime.GOMAXPROCS(0), envOr("GOGC", "default"), goruntime.NumCPU(), goruntime.Version())
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func describeResult(r driver.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-20s synced %d in %.3fs, peak RSS %.1f MiB (RssAnon %.1f; exit %.1f), allocated %.0f MiB, %d GCs",
		r.Contender, r.Sync.Objects, r.Sync.SyncSeconds, float64(r.Sync.HWMBytes)/driver.MiB, float64(r.AnonBytes)/driver.MiB,
		float64(r.Exit.HWMBytes)/driver.MiB, float64(r.Sync.TotalAllocBytes)/driver.MiB, r.Sync.NumGC)
	if r.Sync.Note != "" {
		fmt.Fprintf(&b, ", %s", r.Sync.Note)
	}
	if r.Server != nil {
		fmt.Fprintf(&b, "; read %.2f MiB; kube-apiserver CPU %.3fs, allocated %.0f MiB", float64(r.Sync.BytesRead)/driver.MiB,
			r.Server.CPU.Seconds(), r.Server.AllocatedBytes/driver.MiB)
	}
	if q := r.Quiet; q != nil {
		fmt.Fprintf(&b, "; %s", describeQuiet(q))
	}
	if s := r.Steady; s != nil {
		fmt.Fprintf(&b, "; steady: %d events, %.3f CPU s/1k, lag p50 %.1f ms p99 %.1f ms",
			s.Events, s.CPUSeconds/float64(s.Events)*1000, s.LagP50Seconds*1000, s.LagP99Seconds*1000)
		fmt.Fprintf(&b, " at %.0f writes/s; then peak RSS %.1f MiB, live heap %.1f MiB; %d LIST+WATCH requests",
			r.WriteRate, float64(s.HWMBytes)/driver.MiB, float64(s.LiveHeapBytes)/driver.MiB, s.Requests)
		if s.Restarts > 0 {
			fmt.Fprintf(&b, ", restarts %s", s.RestartReasons)
		}
		if s.SlowCalls > 0 {
			fmt.Fprintf(&b, "; slow handler: %d calls of %.2f ms, %d waiting, max queue %d",
				s.SlowCalls, s.SlowBusySeconds/float64(s.SlowCalls)*1000, s.SlowPending, s.SlowMaxDepth)
		}
	}
	return b.String()
}

// launch starts etcd and kube-apiserver in dir. testbed.Launch builds them
// first when missing (hack/build-testbed.sh, which waits for a build that
// is already running); an interrupt meanwhile returns at once, and the
// kernel ends what was started.
func launch(ctx context.Context, dir string, o options) (*testbed.Server, error) {
	var opts []testbed.Option
	if o.kubeVersion != "" {
		opts = append(opts, testbed.WithKubeVersion(o.kubeVersion))
	}
	var gates []string
	if !o.watchListCompression {
		gates = append(gates, "WatchListCompression=false")
	}
	if o.runs(partShard) {
		v := o.kubeVersion
		if v == "" {
			v, _ = testbed.DefaultVersion()
		}
		if semver.Compare(v, shardGateFrom) >= 0 { // the shard part's server-side shards
			gates = append(gates, "ShardedListAndWatch=true")
		}
	}
	if len(gates) > 0 {
		opts = append(opts, testbed.WithAPIServerFlags("--feature-gates="+strings.Join(gates, ",")))
	}
	fmt.Fprintln(os.Stderr, "starting etcd and kube-apiserver (building them first if bin/ lacks them)")
	type launched struct {
		s   *testbed.Server
		err error
	}
	ch := make(chan launched, 1)
	started := time.Now()
	go func() {
		s, err := testbed.Launch(dir, opts...)
		ch <- launched{s, err}
	}()
	select {
	case l := <-ch:
		if l.err != nil {
			return nil, l.err
		}
		fmt.Fprintf(os.Stderr, "kube-apiserver ready at %s after %s\n", l.s.URL(), time.Since(started).Round(100*time.Millisecond))
		return l.s, nil
	case <-ctx.Done():
		go func() {
			if l := <-ch; l.s != nil {
				l.s.Stop()
			}
		}()
		return nil, driver.ErrInterrupted
	}
}
