package runtime_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWatchListSyncThenLiveEvents(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 50, nil)

	s, rec := startSyncer(t, srv.Config(), runtime.WithNamespace(ns))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := s.Mode(); got != runtime.ModeWatchList {
		t.Fatalf("Mode() = %s, want watchlist", got)
	}
	if !rec.snapshot(func(r *recorder) bool { return len(r.adds) == 50 && r.resyncs == 1 && r.syncs == 1 }) {
		t.Fatalf("after sync: %d objects added, %d resyncs, %d syncs; want 50, 1, 1", len(rec.adds), rec.resyncs, rec.syncs)
	}
	if rec.order[0] != "resync" || rec.order[len(rec.order)-1] != "sync" {
		t.Fatalf("events not framed by resync..sync: first %q, last %q", rec.order[0], rec.order[len(rec.order)-1])
	}

	ctx := context.Background()
	cm, _ := s.Store().Get(ns, "cm-0001")
	upd := cm.DeepCopy()
	upd.Data["x"] = "y"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-0002", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createConfigMaps(t, cs, ns, 50, 51, nil)
	eventually(t, 20*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))
	eventually(t, 5*time.Second, "live events", func() bool {
		return rec.snapshot(func(r *recorder) bool {
			return r.updates == 1 && r.deletes[ns+"/cm-0002"] == 1 && r.adds[ns+"/cm-0050"] == 1
		})
	})
	if d := rec.duplicates(); len(d) > 0 {
		t.Fatalf("delivered more than once: %v", d)
	}
	if got, _ := s.Store().Get(ns, "cm-0001"); got.Data["x"] != "y" {
		t.Fatalf("store holds the old cm-0001")
	}
}

func TestLateHandlerGetsStateThenLiveEvents(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 20, nil)
	s, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(ns))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	late := newRecorder()
	reg := s.AddHandler(late)
	if err := reg.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if !late.snapshot(func(r *recorder) bool { return len(r.adds) == 20 && r.syncs == 1 }) {
		t.Fatalf("late handler got %d adds, %d syncs; want 20, 1", len(late.adds), late.syncs)
	}
	if late.order[len(late.order)-1] != "sync" {
		t.Fatalf("late handler: OnSync not after the replayed state")
	}
	createConfigMaps(t, cs, ns, 20, 21, nil)
	eventually(t, 10*time.Second, "live add at the late handler", func() bool {
		return late.snapshot(func(r *recorder) bool { return r.adds[ns+"/cm-0020"] == 1 })
	})
	reg.Remove()
	<-reg.Done()
	if err := cs.CoreV1().ConfigMaps(ns).Delete(context.Background(), "cm-0000", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "delete in the store", func() bool { _, ok := s.Store().Get(ns, "cm-0000"); return !ok })
	if late.snapshot(func(r *recorder) bool { return r.deletes[ns+"/cm-0000"] != 0 }) {
		t.Fatal("a removed handler still got events")
	}
}

func TestSelectors(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 10, map[string]string{"app": "web"})
	_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "other", Labels: map[string]string{"app": "db"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  runtime.Option
		want int
	}{
		{"label", runtime.WithLabelSelector("app=db"), 1},
		{"label-set", runtime.WithLabelSelector("app in (web)"), 10},
		{"field", runtime.WithFieldSelector("metadata.name=cm-0003"), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// By default a field selector lists (firstWatchList).
			byDefault := runtime.ModeWatchList
			if tc.name == "field" {
				byDefault = runtime.ModeList
			}
			for _, mode := range []struct {
				opt  runtime.Option
				want runtime.Mode
			}{{nil, byDefault}, {runtime.WithWatchList(), runtime.ModeWatchList}, {runtime.WithoutWatchList(), runtime.ModeList}} {
				opts := []runtime.Option{runtime.WithNamespace(ns), tc.opt}
				if mode.opt != nil {
					opts = append(opts, mode.opt)
				}
				s, rec := startSyncer(t, srv.Config(), opts...)
				if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
					t.Fatal(err)
				}
				if s.Store().Len() != tc.want || len(rec.adds) != tc.want {
					t.Fatalf("mode %s: store %d, adds %d; want %d", s.Mode(), s.Store().Len(), len(rec.adds), tc.want)
				}
				if s.Mode() != mode.want {
					t.Errorf("Mode() = %s, want %s", s.Mode(), mode.want)
				}
			}
		})
	}
}

func TestManyObjectsExactlyOnce(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const n = 3000
	createConfigMaps(t, cs, ns, 0, n, nil)
	for _, tc := range []struct {
		name string
		opts []runtime.Option
		mode runtime.Mode
	}{
		{"watchlist", nil, runtime.ModeWatchList},
		{"list", []runtime.Option{runtime.WithoutWatchList(), runtime.WithPageSize(250)}, runtime.ModeList},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rec := startSyncer(t, srv.Config(), append(tc.opts, runtime.WithNamespace(ns))...)
			if err := s.WaitForSync(ctxTimeout(t, 60*time.Second)); err != nil {
				t.Fatal(err)
			}
			if s.Mode() != tc.mode {
				t.Fatalf("Mode() = %s, want %s", s.Mode(), tc.mode)
			}
			if got := rec.snapshot(func(r *recorder) bool { return len(r.adds) == n }); !got {
				t.Fatalf("%d distinct objects added, want %d", len(rec.adds), n)
			}
			for k, c := range rec.adds {
				if c != 1 {
					t.Fatalf("%s added %d times", k, c)
				}
			}
			for i := 0; i < n; i += 977 {
				name := fmt.Sprintf("cm-%04d", i)
				if got, ok := s.Store().Get(ns, name); !ok || got.Data["i"] != fmt.Sprint(i) {
					t.Fatalf("store lacks %s", name)
				}
			}
		})
	}
}

func TestIndexesAndStrip(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 6, map[string]string{"tier": "a"})
	s, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithStripManagedFields(),
		runtime.WithIndex("byI", func(cm *corev1.ConfigMap) []string { return []string{cm.Data["i"]} }),
		runtime.WithIndex("byTier", func(cm *corev1.ConfigMap) []string { return []string{cm.Labels["tier"]} }))
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := s.Store().ByIndex("byTier", "a"); len(got) != 6 {
		t.Fatalf("ByIndex(byTier, a) = %d objects, want 6", len(got))
	}
	got := s.Store().ByIndex("byI", "4")
	if len(got) != 1 || got[0].Name != "cm-0004" {
		t.Fatalf("ByIndex(byI, 4) = %v, want cm-0004", got)
	}
	for _, cm := range s.Store().List() {
		if len(cm.ManagedFields) != 0 {
			t.Fatalf("%s kept its managedFields", cm.Name)
		}
	}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
