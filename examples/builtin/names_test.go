package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A generated projected syncer (NodePod) made over names with the
// runtime's option: it keeps the two pods named, decoded to the projection,
// and a name not there yet; with WithSnapshot it saves a file a name and
// starts warm from them.
func TestProjectedSyncerOverNames(t *testing.T) {
	srv, _, ns := setupPods(t, 20, 2)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pods, err := srv.Client().CoreV1().Pods(ns).List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("listing 2 pods: %v", err)
	}
	keys := []runtime.Key{{Namespace: ns, Name: pods.Items[0].Name}, {Namespace: ns, Name: pods.Items[1].Name}, {Namespace: ns, Name: "not-yet"}}
	snap := filepath.Join(t.TempDir(), "nodepods")
	run := func(want runtime.Mode) {
		t.Helper()
		s, err := corev1syncers.NewNodePodSyncer(srv.Config(), runtime.WithNames(keys...), runtime.WithSnapshot(snap))
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(rctx) }()
		if err := s.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got := s.Store().Len(); got != 2 {
			t.Errorf("store holds %d pods, want the 2 named", got)
		}
		p, ok := s.Store().Get(ns, keys[0].Name)
		if !ok || p.Spec.NodeName != pods.Items[0].Spec.NodeName || len(p.Spec.Containers) == 0 || p.Spec.Containers[0].Image == "" {
			t.Errorf("the projected pod %s: %+v, want its node and images", keys[0].Name, p)
		}
		if m := s.Mode(); m != want {
			t.Errorf("mode %s, want %s", m, want)
		}
		stop()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	run(runtime.ModeWatchList)
	for _, k := range keys[:2] {
		if _, err := os.Stat(snap + "." + k.Namespace + "." + k.Name); err != nil {
			t.Errorf("no snapshot of name %s: %v", k, err)
		}
	}
	run(runtime.ModeWarm)
}
