package runtime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// While the syncer is cut off, objects are deleted, changed and created,
// etcd is compacted and the apiserver restarted (so its watch cache forgets
// the old resourceVersions). Reconnecting from the old resourceVersion gets
// 410 Gone; the syncer resyncs and reports what was deleted meanwhile.
func TestExpiredResyncDeliversDeletions(t *testing.T) {
	srv := testbed.Start(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 30, nil)
	proxy := testbed.StartProxy(t, srv)
	s, rec := startSyncer(t, proxy.Config(), runtime.WithNamespace(ns), runtime.WithBackoff(50*time.Millisecond, 500*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}

	proxy.Pause()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, fmt.Sprintf("cm-%04d", i), metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "cm-0010", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["changed"] = "while away"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, ns, 100, 101, nil)
	srv.Compact(t)
	srv.RestartAPIServer(t)
	proxy.Resume()

	eventually(t, 30*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))
	eventually(t, 5*time.Second, "the resync to finish", func() bool {
		return rec.snapshot(func(r *recorder) bool { return r.syncs == 2 })
	})
	rec.snapshot(func(r *recorder) bool {
		if r.resyncs != 2 {
			t.Errorf("%d resyncs, want 2", r.resyncs)
		}
		for i := 0; i < 5; i++ {
			if k := fmt.Sprintf("%s/cm-%04d", ns, i); r.deletes[k] != 1 {
				t.Errorf("%s: %d OnDelete, want 1", k, r.deletes[k])
			}
		}
		if len(r.deletes) != 5 {
			t.Errorf("%d objects deleted, want 5", len(r.deletes))
		}
		if r.updates != 1 {
			t.Errorf("%d updates, want 1 (cm-0010)", r.updates)
		}
		if r.adds[ns+"/cm-0100"] != 1 {
			t.Errorf("cm-0100 added %d times, want 1", r.adds[ns+"/cm-0100"])
		}
		expired := 0
		for _, err := range r.errs {
			if runtime.Classify(err) == runtime.KindExpired {
				expired++
			}
		}
		if expired == 0 {
			t.Errorf("no expired error among %v", r.errs)
		}
		return true
	})
	if d := rec.duplicates(); len(d) > 0 {
		t.Fatalf("delivered more than once: %v", d)
	}
}

// The apiserver restarts under a running syncer: it reconnects by itself,
// nothing is lost and nothing already delivered is delivered again.
func TestAPIServerRestartLosesNothing(t *testing.T) {
	srv := testbed.Start(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 20, nil)
	s, rec := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithBackoff(50*time.Millisecond, 500*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	srv.RestartAPIServer(t)
	t.Logf("restart took %s", time.Since(started))

	ctx := context.Background()
	createConfigMaps(t, cs, ns, 20, 25, nil)
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-0001", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))
	t.Logf("caught up %s after the restart began", time.Since(started))
	eventually(t, 5*time.Second, "the events", func() bool {
		return rec.snapshot(func(r *recorder) bool { return len(r.adds) == 25 && r.deletes[ns+"/cm-0001"] == 1 })
	})
	for k, n := range rec.adds {
		if n != 1 {
			t.Fatalf("%s added %d times", k, n)
		}
	}
	if d := rec.duplicates(); len(d) > 0 {
		t.Fatalf("delivered more than once: %v", d)
	}
}
