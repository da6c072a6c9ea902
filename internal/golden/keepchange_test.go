package golden_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// agentKinds is a node agent's projection of pods; keeps are its keep paths.
func agentKinds(keeps ...string) string {
	s := "package kinds\n\nimport corev1 \"k8s.io/api/core/v1\"\n\n// +syncer-gen\n"
	for _, k := range keeps {
		s += "// +syncer-gen:keep=" + k + "\n"
	}
	return s + "type NodePod = corev1.Pod\n"
}

// agentMain syncs the pods of a namespace with the generated NodePod
// syncer and a snapshot, and prints how it synced.
const agentMain = `package main

import (
	"context"
	"fmt"
	"os"

	corev1 "example.com/m/agent/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Args[1])
	if err != nil {
		panic(err)
	}
	s, err := corev1.NewNodePodSyncer(cfg, runtime.WithNamespace(os.Args[2]), runtime.WithSnapshot(os.Args[3]))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	if err := s.WaitForSync(ctx); err != nil {
		panic(err)
	}
	fmt.Printf("mode=%s pods=%d\n", s.Mode(), s.Store().Len())
	cancel()
	<-done // saves the snapshot
}
`

// A program rebuilt with another keep list starts cold from the snapshot
// of the old one, even when only metadata fields changed (the projected
// type is then the same Go shape, metav1.ObjectMeta, with another tag);
// rebuilt with the same list, it starts warm.
func TestChangedKeepListStartsCold(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program three times; skipped with -short")
	}
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createPods(t, cs, ns, 0, 5)
	dir := testmodule.Write(t, map[string]string{
		"agent/kinds/kinds.go": agentKinds(".spec.nodeName", ".metadata.labels"),
		"agent/main.go":        agentMain,
	})
	tmp := t.TempDir()
	kubeconfig, snapshot := filepath.Join(tmp, "kubeconfig"), filepath.Join(tmp, "pods.snapshot")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	gen := filepath.Join(tmp, "syncer-gen")
	goCmd := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goCmd("build", "-o", gen, "github.com/syncer-gen/syncer-gen/cmd/syncer-gen")
	generate := func() {
		t.Helper()
		cmd := exec.Command(gen, "--output-dir", "agent/syncers", "./agent/kinds")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("syncer-gen: %v\n%s", err, out)
		}
		goCmd("build", "-o", filepath.Join(tmp, "agent"), "./agent")
	}
	run := func(warm bool) {
		t.Helper()
		out, err := exec.Command(filepath.Join(tmp, "agent"), kubeconfig, ns, snapshot).Output()
		if err != nil {
			t.Fatalf("agent: %v\n%s", err, out)
		}
		got := strings.TrimSpace(string(out))
		if strings.HasPrefix(got, "mode=warm ") != warm || !strings.HasSuffix(got, " pods=5") {
			t.Errorf("agent: %q, want warm=%v and 5 pods", got, warm)
		}
	}
	generate()
	run(false) // the first run: no snapshot yet
	run(true)
	tag := func() string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(dir, "agent/syncers/core/v1/nodepod_projection.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "metav1.ObjectMeta `") {
				return line
			}
		}
		t.Fatal("no ObjectMeta field in the projected type")
		return ""
	}
	before := tag()

	// The labels are no longer kept: NodePod's Go shape is the same.
	if err := os.WriteFile(filepath.Join(dir, "agent/kinds/kinds.go"), []byte(agentKinds(".spec.nodeName")), 0o644); err != nil {
		t.Fatal(err)
	}
	generate()
	if after := tag(); after == before || !strings.Contains(before, "labels") || strings.Contains(after, "labels") {
		t.Fatalf("the ObjectMeta tag went from %s to %s", before, after)
	}
	run(false) // the old build's snapshot is refused
	run(true)
}
