package runtime_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The warm start on servers and proxies that do not behave like an
// etcd-backed kube-apiserver, and its ways back to a cold sync, played on
// a fake server.

// isMetadataList tells whether r is a warm start's metadata-only LIST.
func isMetadataList(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList")
}

// isWatchList tells whether r asks for the initial events.
func isWatchList(r *http.Request) bool { return r.URL.Query().Get("sendInitialEvents") == "true" }

// sendInitial plays a WatchList's initial events: objs, then end.
func sendInitial(send func(string, any), end *corev1.ConfigMap, objs ...*corev1.ConfigMap) {
	for _, o := range objs {
		send("ADDED", o)
	}
	send("BOOKMARK", end)
}

// objectName returns the name a GET asks for, or "" for a collection.
func objectName(r *http.Request) string {
	if name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]; name != "configmaps" {
		return name
	}
	return ""
}

// inferred returns the keys told gone as inferred deletions, sorted.
func (r *recorder) inferredKeys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k, n := range r.inferred {
		for range n {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// TestWarmFetchHonoursTheSelector plays a warm start with a label
// selector whose snapshot's resourceVersion the server no longer has, so
// that what changed is fetched. b was in the selection at the LIST (100),
// then left it (101) and changed again (102). A GET by name ignores
// selectors and would bring b@102, outside the selection and newer than
// the DELETED that the watch with the selector sends at 101: the syncer
// would wait for ever and keep b. The fetch must honour the selector.
func TestWarmFetchHonoursTheSelector(t *testing.T) {
	const sel = "app=x"
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if got := r.URL.Query().Get("labelSelector"); got != sel {
			t.Errorf("watch with labelSelector %q, want %q", got, sel)
		}
		if r.URL.Query().Get("resourceVersion") == "10" {
			gone(send, "10")
			return true
		}
		send("DELETED", fakeCM("b", 101)) // b's last state in the selection
		return false
	})
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		q := r.URL.Query()
		switch {
		case isMetadataList(r):
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60), fakeCM("c", 10), fakeCM("d", 10))
		case objectName(r) == "b": // a GET by name: b as it is now, outside the selection
			writeObject(w, fakeCM("b", 102))
		case q.Get("fieldSelector") == "metadata.name=b" && q.Get("labelSelector") == sel:
			writeList(w, 102, "", nil) // not in the selection any more
		default:
			t.Errorf("unexpected request %s", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
		}
	}
	f.saveSnapshot(t, runtime.WithLabelSelector(sel))
	s, r := f.start(t, runtime.WithLabelSelector(sel))
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatalf("not synced: %v (store %v)", err, s.Store().Keys())
	}
	if b, ok := s.Store().Get("ns", "b"); ok {
		t.Errorf("b@%s stored: it is not in the selection", b.ResourceVersion)
	}
	if s.Mode() != runtime.ModeWarm || s.Store().Len() != 3 {
		t.Errorf("mode %s with %v, want warm with a, c and d", s.Mode(), s.Store().Keys())
	}
	eventually(t, 5*time.Second, "b's deletion told", func() bool {
		return r.snapshot(func(r *recorder) bool { return r.deletes["ns/b"] == 1 })
	})
}

// TestWarmStartWithOpaqueResourceVersions plays a server whose
// resourceVersions are not integers (an aggregated server not backed by
// etcd): their order cannot be known, so a warm start cannot catch up
// from the snapshot; it must go on cold, and live events must flow after
// the sync.
func TestWarmStartWithOpaqueResourceVersions(t *testing.T) {
	opaque := func(name, rv string) *corev1.ConfigMap {
		o := fakeCM(name, 0)
		o.ResourceVersion = rv
		return o
	}
	end := func(rv string) *corev1.ConfigMap {
		b := endBookmark(0)
		b.ResourceVersion = rv
		return b
	}
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if isWatchList(r) {
			sendInitial(send, end("x101"), opaque("a", "a1"), opaque("b", "b2"))
		}
		return false
	})
	f.initial = []*corev1.ConfigMap{opaque("a", "a1"), opaque("b", "b1"), opaque("c", "c1")}
	f.end = end("x10")
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		writeMetadataListAt(w, "x100", opaque("a", "a1"), opaque("b", "b2"))
	}
	f.saveSnapshot(t)
	s, r := f.start(t)
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	f.send(&watchEvent{"MODIFIED", opaque("a", "a3")})
	eventually(t, 5*time.Second, "the live event a@a3 stored", func() bool {
		o, ok := s.Store().Get("ns", "a")
		return ok && o.ResourceVersion == "a3"
	})
	if got := r.inferredKeys(); !slices.Equal(got, []string{"ns/c"}) {
		t.Errorf("told gone %v, want c, once", got)
	}
}

// TestWarmStartWhereTheMetadataListIsRefused plays servers that will not
// serve the metadata-only LIST, while they serve WatchList: one answers
// 406, one a plain list (an aggregated server that ignores the Accept
// parameters). The syncer must not ask again and again: it goes on cold
// at once, and tells the handlers of the snapshot's objects that are gone.
func TestWarmStartWhereTheMetadataListIsRefused(t *testing.T) {
	for name, refuse := range map[string]func(w http.ResponseWriter){
		"NotAcceptable": func(w http.ResponseWriter) {
			status(w, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "only application/json")
		},
		"PlainList": func(w http.ResponseWriter) { writeList(w, 100, "", nil, fakeCM("a", 10)) },
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
				if !isWatchList(r) {
					t.Errorf("watch %s: want a WatchList, the warm start cannot go on", r.URL)
				}
				sendInitial(send, endBookmark(101), fakeCM("a", 10), fakeCM("b", 20))
				return false
			})
			f.list = func(w http.ResponseWriter, r *http.Request, n int) {
				if n > 1 {
					t.Errorf("LIST %d: the refused metadata-only LIST asked again", n)
				}
				refuse(w)
			}
			f.saveSnapshot(t)
			s, r := f.start(t)
			if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
				t.Fatal(err)
			}
			if s.Mode() != runtime.ModeWatchList || s.Store().Len() != 2 {
				t.Errorf("mode %s with %v, want watchlist with a and b", s.Mode(), s.Store().Keys())
			}
			eventually(t, 5*time.Second, "c and d told gone", func() bool {
				return slices.Equal(r.inferredKeys(), []string{"ns/c", "ns/d"})
			})
		})
	}
}

// TestWarmStartGoingColdTellsWhatVanished plays the warm start's ways back
// to a cold sync. Objects of the snapshot that the metadata LIST showed
// changed are not in the store while the warm start waits for their new
// state; when it goes cold instead, and they are gone from the server by
// the time of the cold sync, the cold sweep cannot see them: each must
// still be told gone, once.
func TestWarmStartGoingColdTellsWhatVanished(t *testing.T) {
	t.Run("GetFails", func(t *testing.T) {
		f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
			switch {
			case isWatchList(r):
				sendInitial(send, endBookmark(110), fakeCM("a", 10)) // b and c were deleted since
			case r.URL.Query().Get("resourceVersion") == "10":
				gone(send, "10")
				return true
			}
			return false
		})
		f.list = func(w http.ResponseWriter, r *http.Request, n int) {
			switch objectName(r) {
			case "":
				writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60), fakeCM("c", 70))
			case "b":
				status(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "not now")
			default: // c: fetched after b failed, or not at all
				status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "gone")
			}
		}
		f.saveSnapshot(t)
		s, r := f.start(t)
		if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "b, c and d told gone once", func() bool {
			return slices.Equal(r.inferredKeys(), []string{"ns/b", "ns/c", "ns/d"})
		})
		if s.Store().Len() != 1 {
			t.Errorf("store %v, want a", s.Store().Keys())
		}
	})
	t.Run("FetchingCostsMore", func(t *testing.T) {
		const objects, gone5 = 40, 5
		var initial, changed []*corev1.ConfigMap
		for i := range objects {
			initial = append(initial, fakeCM(fmt.Sprintf("o%02d", i), 10))
			changed = append(changed, fakeCM(fmt.Sprintf("o%02d", i), 50+i))
		}
		f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
			switch {
			case isWatchList(r):
				sendInitial(send, endBookmark(110), changed[gone5:]...)
			case r.URL.Query().Get("resourceVersion") == "10":
				gone(send, "10")
				return true
			}
			return false
		})
		f.initial = initial
		f.list = func(w http.ResponseWriter, r *http.Request, n int) {
			if objectName(r) != "" {
				t.Errorf("GET %s: fetching every object costs the server more than a WatchList", r.URL)
			}
			writeMetadataList(w, 100, changed...)
		}
		f.saveSnapshot(t)
		s, r := f.start(t)
		if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, o := range changed[:gone5] {
			want = append(want, "ns/"+o.Name)
		}
		eventually(t, 5*time.Second, "the objects deleted since the LIST told gone", func() bool {
			return slices.Equal(r.inferredKeys(), want)
		})
		if s.Store().Len() != objects-gone5 || s.Mode() != runtime.ModeWatchList {
			t.Errorf("mode %s with %d objects, want watchlist with %d", s.Mode(), s.Store().Len(), objects-gone5)
		}
	})
	t.Run("CatchUpIncomplete", func(t *testing.T) {
		f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
			if isWatchList(r) {
				sendInitial(send, endBookmark(110), fakeCM("a", 101)) // b deleted since
				hold(r)
				return true
			}
			return false
		})
		f.list = func(w http.ResponseWriter, r *http.Request, n int) {
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60))
		}
		f.saveSnapshot(t)
		s, r := f.start(t)
		// The watch from the snapshot passes the LIST without b@60.
		f.send(&watchEvent{"DELETED", fakeCM("c", 20)}, &watchEvent{"MODIFIED", fakeCM("a", 101)})
		if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "b, c and d told gone once", func() bool {
			return slices.Equal(r.inferredKeys(), []string{"ns/b", "ns/c", "ns/d"})
		})
	})
}

// TestWarmStartDoesNotWaitForeverOnASilentWatch plays a quiet resource
// behind a proxy that drops bookmarks, whose watch from the snapshot never
// delivers b's state at the LIST: the warm start must not stay unsynced
// for ever, but fetch what it lacks once the watch has been silent for the
// bookmark timeout.
func TestWarmStartDoesNotWaitForeverOnASilentWatch(t *testing.T) {
	f := newFakeWarm(t, nil)
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		switch objectName(r) {
		case "":
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60))
		case "b":
			writeObject(w, fakeCM("b", 60))
		default:
			t.Errorf("unexpected request %s", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
		}
	}
	f.saveSnapshot(t)
	s, _ := f.start(t, runtime.WithBookmarkTimeout(300*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if b, ok := s.Store().Get("ns", "b"); !ok || b.ResourceVersion != "60" || s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, b %v; want warm with b@60", s.Mode(), b)
	}
}

// writeObject answers a GET with obj.
func writeObject(w http.ResponseWriter, obj any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(obj)
}

// TestResyncFromTheStore plays a 410 Gone on a running syncer's watch: it
// resyncs from its store, fetching only what the metadata-only LIST shows
// changed. Handlers must get b's update, e's addition and c and d as
// inferred deletions between OnResyncStarted and OnSync, and nothing of a,
// unchanged; and no WatchList is made again.
func TestResyncFromTheStore(t *testing.T) {
	f := newFakeAPI(t)
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		switch {
		case n == 1:
			sendInitial(send, endBookmark(10), fakeCM("a", 10), fakeCM("b", 10), fakeCM("c", 10), fakeCM("d", 10))
			gone(send, "10") // as a restarted server's watch cache does
		case isWatchList(r):
			t.Errorf("WatchList %d: the resync after the 410 must start from the store", n)
		default:
			hold(r)
		}
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		switch objectName(r) {
		case "":
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60), fakeCM("e", 70))
		case "b":
			writeObject(w, fakeCM("b", 60))
		case "e":
			writeObject(w, fakeCM("e", 70))
		default:
			t.Errorf("unexpected request %s", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
		}
	}
	s, r := startSyncer(t, f.config())
	eventually(t, 10*time.Second, "the resync from the store", func() bool {
		return r.snapshot(func(r *recorder) bool { return r.syncs == 2 })
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.Index(r.order, "sync")
	calls := r.order[i+1:]
	if len(calls) < 2 || calls[0] != "resync" || calls[len(calls)-1] != "sync" {
		t.Fatalf("handler calls after the first sync %v: want OnResyncStarted first and OnSync last", calls)
	}
	between := slices.Sorted(slices.Values(calls[1 : len(calls)-1]))
	if want := []string{"add:ns/e", "delete:ns/c", "delete:ns/d", "update:ns/b"}; !slices.Equal(between, want) {
		t.Errorf("handler calls %v in the resync, want %v", calls, want)
	}
	if r.inferred["ns/c"] != 1 || r.inferred["ns/d"] != 1 {
		t.Errorf("inferred deletions %v, want c and d", r.inferred)
	}
	if s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, want warm", s.Mode())
	}
}

// TestWarmFetchedGoneStaysGone plays an object that the warm start's fetch
// finds gone, while the watch from the LIST has yet to deliver its last
// states: a pod's deletion is a MODIFIED (its deletionTimestamp set), then
// the DELETED. Handlers were told b is gone when the fetch found nothing:
// the MODIFIED must not bring it back.
func TestWarmFetchedGoneStaysGone(t *testing.T) {
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if r.URL.Query().Get("resourceVersion") == "10" {
			gone(send, "10")
			return true
		}
		return false
	})
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		switch objectName(r) {
		case "":
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60))
		default: // b, deleted at 102
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "gone")
		}
	}
	f.saveSnapshot(t)
	s, r := f.start(t)
	eventually(t, 10*time.Second, "b told gone", func() bool {
		return r.snapshot(func(r *recorder) bool { return r.deletes["ns/b"] == 1 })
	})
	// a@101 after b@101: once a@101 is stored, b@101 was applied, or dropped.
	f.send(&watchEvent{"MODIFIED", fakeCM("b", 101)}, &watchEvent{"MODIFIED", fakeCM("a", 101)})
	eventually(t, 5*time.Second, "a@101", func() bool { o, ok := s.Store().Get("ns", "a"); return ok && o.ResourceVersion == "101" })
	if o, ok := s.Store().Get("ns", "b"); ok {
		t.Errorf("b@%s stored again after the fetch found it gone", o.ResourceVersion)
	}
	f.send(&watchEvent{"DELETED", fakeCM("b", 102)})
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if r.snapshot(func(r *recorder) bool { return r.adds["ns/b"] != 0 || r.deletes["ns/b"] != 1 }) {
		t.Errorf("b added or deleted again after it was told gone: %v", r.order)
	}
}
