package runtime_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// countingMetrics counts reconnects and relists.
type countingMetrics struct {
	runtime.NopMetrics
	reconnects, relists atomic.Int64
}

func (m *countingMetrics) Reconnected(runtime.Reason) { m.reconnects.Add(1) }
func (m *countingMetrics) Relisted(runtime.Reason)    { m.relists.Add(1) }

// updateConfigMaps sets data "round" of cm-<0..n-1> in ns to each of
// rounds, with 8 workers.
func updateConfigMaps(t *testing.T, cs kubernetes.Interface, ns string, n, rounds int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i := w; i < n; i += 8 {
					_, err := cs.CoreV1().ConfigMaps(ns).Update(context.Background(), &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)},
						Data:       map[string]string{"round": fmt.Sprint(r)},
					}, metav1.UpdateOptions{})
					if err != nil {
						select {
						case errs <- err:
						default:
						}
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// A handler that blocks while thousands of changes stream in costs the
// watch nothing: the stream keeps being read (the server never closes it as
// unresponsive), the other handlers stay current, and the blocked handler's
// queue holds at most one call per object. Released, it catches up with the
// latest state.
func TestBlockedHandlerDoesNotCostTheWatch(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	const objects = 200
	createConfigMaps(t, cs, ns, 0, objects, nil)
	proxy := testbed.StartProxy(t, srv)
	m := &countingMetrics{}
	s, rec := startSyncer(t, proxy.Config(), runtime.WithNamespace(ns), runtime.WithMetrics(m))
	release := make(chan struct{})
	unblock := sync.OnceFunc(func() { close(release) })
	defer unblock()
	var once sync.Once
	latest := map[string]string{}
	var mu sync.Mutex
	blocked := s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(o *corev1.ConfigMap) { mu.Lock(); latest[o.Name] = o.ResourceVersion; mu.Unlock() },
		UpdateFunc: func(_, o *corev1.ConfigMap) {
			once.Do(func() { <-release })
			mu.Lock()
			latest[o.Name] = o.ResourceVersion
			mu.Unlock()
		},
	}, runtime.WithHandlerName("blocked"))
	if err := rec.waitSynced(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	watches, reconnects := proxy.Watches(), m.reconnects.Load()

	updateConfigMaps(t, cs, ns, objects, 10) // 2000 changes while the handler blocks
	eventually(t, 30*time.Second, "store to match the server", storeMatchesServer(t, cs, s, ns))
	// Current: told of each object's latest version. Not of every version:
	// its queue folds the events of an object it has not taken yet, and on
	// a loaded machine it may be a few writes behind.
	eventually(t, 10*time.Second, "the other handler to be current", func() bool {
		return rec.snapshot(func(r *recorder) bool {
			for _, o := range s.Store().List() {
				if r.addRVs[key(o)+"@"+o.ResourceVersion] == 0 {
					return false
				}
			}
			return r.updates > 0
		})
	})
	if p := blocked.Pending(); p > objects {
		t.Errorf("the blocked handler has %d calls pending for %d objects", p, objects)
	}
	if proxy.Watches() != watches || m.reconnects.Load() != reconnects {
		t.Errorf("the watch was reopened while a handler blocked: %d watches, %d reconnects",
			proxy.Watches()-watches, m.reconnects.Load()-reconnects)
	}
	unblock()
	eventually(t, 10*time.Second, "the released handler to catch up", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, o := range s.Store().List() {
			if latest[o.Name] != o.ResourceVersion {
				return false
			}
		}
		return true
	})
}

// Time spent in handlers during the initial stream is not taken for a
// server that never sends the end bookmark.
func TestSlowHandlerDuringInitialStreamKeepsWatchList(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 150, nil)
	s, rec := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithBookmarkTimeout(300*time.Millisecond))
	s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{AddFunc: func(*corev1.ConfigMap) { time.Sleep(10 * time.Millisecond) }})
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeWatchList {
		t.Fatalf("Mode() = %s after a slow handler; want watchlist", s.Mode())
	}
	rec.snapshot(func(r *recorder) bool {
		if len(r.errs) > 0 {
			t.Errorf("errors: %v", r.errs)
		}
		return true
	})
}

// A request the server rejects for its own fault (a bad field selector:
// 400) is an error to the user and does not turn WatchList off for other
// syncers of the same server and resource.
func TestBadSelectorDoesNotTurnWatchListOff(t *testing.T) {
	srv := testbed.Shared(t)
	cs := srv.Client()
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 3, nil)
	_, bad := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithFieldSelector("metadata.bogus=1"), runtime.WithWatchList())
	eventually(t, 20*time.Second, "an error for the bad selector", func() bool {
		return bad.snapshot(func(r *recorder) bool { return len(r.errs) > 0 })
	})
	bad.snapshot(func(r *recorder) bool {
		if k := runtime.Classify(r.errs[0]); k != runtime.KindInvalid {
			t.Errorf("error %v is %s, want invalid", r.errs[0], k)
		}
		return true
	})
	good, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(ns))
	if err := good.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if good.Mode() != runtime.ModeWatchList {
		t.Fatalf("Mode() = %s after another syncer's bad selector; want watchlist", good.Mode())
	}
}
