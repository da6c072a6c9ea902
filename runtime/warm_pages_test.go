package runtime_test

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// pageGate holds each metadata-only LIST page after the first until the
// syncer has restored an object (a metadata that counts the objects
// received as added says so), for at most a few seconds: a warm start
// that matches each page as it comes lets every page through at once; one
// that matches only once the LIST is in holds each the whole while.
type pageGate struct {
	restored  *errorCounts
	fail      atomic.Bool  // answer the first page let through 500
	held, out atomic.Int32 // pages held, and those whose hold ran out
}

const pageHold = 5 * time.Second

func (g *pageGate) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		if !isMetadataList(r) || r.URL.Query().Get("continue") == "" {
			return rt.RoundTrip(r)
		}
		g.held.Add(1)
		deadline := time.Now().Add(pageHold)
		for g.restored.added.Load() == 0 {
			if time.Now().After(deadline) {
				g.out.Add(1)
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if g.fail.CompareAndSwap(true, false) {
			return statusResponse(r, http.StatusInternalServerError, metav1.StatusReasonInternalError, "the LIST's second page fails here"), nil
		}
		return rt.RoundTrip(r)
	})
}

func (g *pageGate) String() string {
	return fmt.Sprintf("metadata-only LIST pages held %d, held out %d", g.held.Load(), g.out.Load())
}

// TestWarmStartRestoresWhileItLists starts a syncer warm from its snapshot
// of 3,000 ConfigMaps, in metadata-only LIST pages of 1,000, with writes
// flowing: the objects of a page are restored while the next page is under
// way, not once the whole LIST is in (issue 44: matching and restoring
// 20,000 objects after the LIST was a third of a warm start). Then the store
// and the state rebuilt from handler calls equal a quorum LIST.
func TestWarmStartRestoresWhileItLists(t *testing.T) {
	srv := testbed.Shared(t)
	f := prepare(t, srv, 3000, 256)
	inj := newInjector(t, srv)
	g := &pageGate{restored: &inj.errs}
	inj.wraps = append(inj.wraps, g.wrap)
	r := startWarm(t, f, true, inj, testbed.WriterOptions{Rate: writeRate, Population: 50, KeepExisting: true}, g.String,
		runtime.WithPageSize(100))
	r.finish(t, f, func(testbed.WriterStats) {
		if r.s.Mode() != runtime.ModeWarm {
			t.Errorf("mode %s, want warm", r.s.Mode())
		}
		if g.held.Load() < 2 || g.out.Load() != 0 {
			t.Errorf("%s: want 2 or more, none held out (no object restored before the LIST was in)", g)
		}
	})
	r.c.checkPriorSettled(t, r.churn.Deleted)
}

// TestWarmStartWhoseListFailsPartWay fails the metadata-only LIST's second
// page once the first page's objects are restored, with writes flowing:
// the part of the snapshot used stays used (handlers are not told of those
// objects twice), the rest of the resync is cold, every object of the
// snapshot is delivered again or told gone once, and the store and the
// state rebuilt from handler calls equal a quorum LIST.
func TestWarmStartWhoseListFailsPartWay(t *testing.T) {
	srv := testbed.Shared(t)
	f := prepare(t, srv, 3000, 256)
	reqs := &requestLog{}
	inj := newInjector(t, srv, reqs.wrap)
	g := &pageGate{restored: &inj.errs}
	g.fail.Store(true)
	inj.wraps = append(inj.wraps, g.wrap)
	r := startWarm(t, f, true, inj, testbed.WriterOptions{Rate: writeRate, Population: 50, KeepExisting: true}, g.String,
		runtime.WithPageSize(100))
	r.finish(t, f, func(testbed.WriterStats) {
		if n := inj.errs.of(runtime.KindInternal); n != 1 {
			t.Errorf("%d server errors reported, want the page's", n)
		}
		if c := reqs.counts(); c.watchLists+c.lists == 0 {
			t.Errorf("no WatchList or LIST of whole objects: the resync did not go on cold (%+v)", c)
		}
	})
	r.c.checkPriorSettled(t, r.churn.Deleted)
}
