package runtime_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// fillLarge creates n ConfigMaps big-0000... in ns whose metadata is large:
// an annotation of size bytes each (a last-applied-configuration, say).
func fillLarge(t *testing.T, cs kubernetes.Interface, ns string, n, size int) {
	t.Helper()
	pad := strings.Repeat("x", size)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("big-%04d", i), Annotations: map[string]string{"pad": pad}},
			}, metav1.CreateOptions{})
			errs <- err
		})
		if i%8 == 7 {
			wg.Wait()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestWarmResyncOfALargeResourceWithPageSizeZero plays WithPageSize(0) (a
// LIST in one piece) over a resource whose metadata is 35 MiB, over the
// 32 MiB a metadata-only LIST page may be, on a real server with writes
// flowing: a warm start from a snapshot, and a running syncer's warm
// resync after a 410 Gone. The metadata-only LIST must be read in pages
// smaller than the bound (it asked for the whole LIST again and again,
// never syncing), and the resync end warm with the store and the state
// rebuilt from handler calls equal to a quorum LIST.
func TestWarmResyncOfALargeResourceWithPageSizeZero(t *testing.T) {
	// 35 MiB of metadata in 600 objects, and 1,000 small ones; the writes
	// keep to 50 objects of their own, so that the objects they change
	// while the LIST is read are few enough to fetch (see fetchCostsMore).
	const large, annotation, small = 600, 60 << 10, 1000
	srv := testbed.Shared(t)
	for _, tc := range warmResyncs {
		t.Run(tc.name, func(t *testing.T) {
			f := prepare(t, srv, small, 256)
			fillLarge(t, kubernetes.NewForConfigOrDie(srv.Config()), f.ns, large, annotation)
			reqs := &requestLog{}
			inj := newInjector(t, srv, reqs.wrap)
			more := func() string { return fmt.Sprintf("metadata-only LISTs made, by limit: %v", inj.metadataLimits()) }
			r := startWarm(t, f, tc.fromSnapshot, inj, testbed.WriterOptions{Rate: writeRate, Population: 50, KeepExisting: true}, more,
				runtime.WithPageSize(0))
			s, c := r.s, r.c
			r.finish(t, f, func(testbed.WriterStats) {
				if s.Mode() != runtime.ModeWarm {
					t.Errorf("mode %s, want warm", s.Mode())
				}
				cold := 0 // the first sync of the syncer that gets the 410: a count (a LIST of one item), then a WatchList
				if !tc.fromSnapshot {
					cold = 1
				}
				if r := reqs.counts(); r.watchLists != cold || r.lists != cold {
					t.Errorf("%d WatchList and %d LIST requests of whole objects, want %d of each: the resync went cold", r.watchLists, r.lists, cold)
				}
			})
			// The large objects come first (by name): a page of 1,250 items
			// holds them all, one of 156 is under the bound.
			limits := inj.metadataLimits()
			t.Logf("metadata-only LISTs, by limit: %v", limits)
			if ladder := []int{10_000, 1250}; len(limits) < 3 || !slices.Equal(limits[:2], ladder) ||
				slices.ContainsFunc(limits[2:], func(l int) bool { return l != 156 }) {
				t.Errorf("metadata-only LISTs by limit %v; want %v, each once, then pages of 156", limits, ladder)
			}
			if tc.fromSnapshot {
				c.checkPriorSettled(t, r.churn.Deleted)
			}
		})
	}
}

// TestWarmStartWhereEveryMetadataPageIsTooLarge plays a server whose every
// metadata-only LIST page is over the 32 MiB bound, whatever the limit (an
// object whose metadata alone is that large): the syncer asks for smaller
// pages down to one item, then, with no smaller page to ask for, goes on
// cold at once, tells the snapshot's objects not found again gone, once,
// and syncs.
func TestWarmStartWhereEveryMetadataPageIsTooLarge(t *testing.T) {
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if isWatchList(r) {
			sendInitial(send, endBookmark(110), fakeCM("a", 10), fakeCM("b", 60)) // c and d deleted since
		}
		return false
	})
	var mu sync.Mutex
	var limits []int
	asked := func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(limits) }
	oversized := func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		mu.Lock()
		limits = append(limits, n)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for range 33 { // until the client stops reading
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) { oversized(w, r) }
	f.count = func(w http.ResponseWriter, r *http.Request) { // a LIST of limit 1
		if isMetadataList(r) {
			oversized(w, r)
			return
		}
		status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no count")
	}
	f.saveSnapshot(t, runtime.WithPageSize(0))
	s, r := f.start(t, runtime.WithPageSize(0))
	if err := s.WaitForSync(ctxTimeout(t, 20*time.Second)); err != nil {
		t.Fatalf("not synced: %v; metadata-only LISTs by limit %v", err, asked())
	}
	if s.Mode() != runtime.ModeWatchList || s.Store().Len() != 2 {
		t.Errorf("mode %s with %v, want watchlist with a and b", s.Mode(), s.Store().Keys())
	}
	eventually(t, 5*time.Second, "c and d told gone once", func() bool {
		return slices.Equal(r.inferredKeys(), []string{"ns/c", "ns/d"})
	})
	if want := []int{10_000, 1250, 156, 19, 2, 1}; !slices.Equal(asked(), want) {
		t.Errorf("metadata-only LISTs by limit %v, want %v: smaller pages down to one item, once", asked(), want)
	}
}
