package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestWarmRestart stops a syncer, changes, deletes and creates objects and
// compacts etcd past every resourceVersion of its snapshot while no syncer
// runs, then starts another from the snapshot with writes flowing. It must
// sync warm, without a WatchList or a LIST of whole objects; tell its
// handler of each object deleted while down; and end, like a cold start,
// with the store and the state rebuilt from handler calls equal to a
// quorum LIST. Where the server's watch cache still has the snapshot's
// resourceVersion (etcd's compaction does not shorten it), the watch from
// it brings every change and no object is fetched; where the server
// restarted meanwhile, it has not: the changed objects are fetched, one
// GET each.
func TestWarmRestart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		restart bool // kube-apiserver restarts while no syncer runs
	}{
		{"WatchFromTheSnapshot", false},
		{"ServerRestarted", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *testbed.Server
			if tc.restart {
				srv = testbed.Start(t)
			} else {
				srv = testbed.Shared(t)
			}
			const objects, churn = 2000, 20 // 1% changed, deleted, created
			f := prepare(t, srv, objects, 512)
			path := filepath.Join(t.TempDir(), "configmaps.snapshot")
			opts := append(slices.Clone(faultOptions), runtime.WithSnapshot(path))

			// A cold first run with writes flowing; stopping it saves the snapshot.
			w1 := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 200, KeepExisting: true})
			s1, c1, stop1 := startChecked(t, srv.Config(), f.ns, opts...)
			waitSynced(t, s1, c1, "", nil)
			if s1.Mode() != runtime.ModeWatchList {
				t.Fatalf("first run: mode %s, want watchlist (no snapshot yet)", s1.Mode())
			}
			waitLive(t, c1)
			w1.Stop()
			checkConverged(t, f.mc, f.ns, s1, c1, convergeWithin)
			stop1()
			c1.checkViolations(t)
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("snapshot after the first run: %v, mode %v; want a file of mode 0600", err, fi.Mode())
			}
			savedAt := snapshotRV(t, path)

			// While no syncer runs.
			cs := kubernetes.NewForConfigOrDie(srv.Config())
			ch, err := testbed.ChurnConfigMaps(context.Background(), cs, f.ns, churn)
			if err != nil {
				t.Fatal(err)
			}
			changed, deleted, created := ch.Changed, ch.Deleted, ch.Created
			srv.Compact(t)
			if tc.restart {
				srv.RestartAPIServer(t)
			}

			// The warm start, with writes flowing.
			reqs := &requestLog{}
			cfg := srv.Config()
			cfg.Wrap(reqs.wrap)
			c2 := newChecker(f.ns)
			c2.prior = map[string]uint64{}
			for k, rv := range c1.rebuilt() {
				c2.prior[k] = parseRV(rv)
			}
			w2 := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 200, KeepExisting: true})
			started := time.Now()
			s2, stop2 := startWith(t, cfg, c2, opts...)
			waitSynced(t, s2, c2, "from the snapshot", nil)
			writesBefore := w2.Stats().Writes()
			if s2.Mode() != runtime.ModeWarm {
				t.Fatalf("second run: mode %s, want warm", s2.Mode())
			}
			f.finish(t, s2, c2, stop2, w2, started, func(testbed.WriterStats) {})

			r := reqs.counts()
			t.Logf("requests: %+v (writes before the sync: %d)", r, writesBefore)
			if r.watchLists+r.lists > 0 {
				t.Errorf("%d WatchList and %d LIST requests of whole objects: a warm start needs neither", r.watchLists, r.lists)
			}
			if r.metadataLists == 0 {
				t.Error("no metadata-only LIST")
			}
			if len(r.watchesFrom) == 0 || r.watchesFrom[0] != savedAt {
				t.Errorf("watches from %v: want the first from the snapshot's resourceVersion %s", r.watchesFrom, savedAt)
			}
			if !tc.restart && r.gets > 0 {
				t.Errorf("%d GETs: the watch from the snapshot brings every change", r.gets)
			}
			if limit := int64(len(changed)+len(created)) + writesBefore; tc.restart && (int64(r.gets) > limit || r.gets < len(changed)+len(created)) {
				t.Errorf("%d GETs; want one per object changed or created while down (%d) and at most one per write since (%d)",
					r.gets, len(changed)+len(created), writesBefore)
			}
			c2.mu.Lock()
			defer c2.mu.Unlock()
			for _, k := range deleted {
				if c2.vanished[k] != 1 {
					t.Errorf("%s, deleted while down: told %d times that it vanished, want once", k, c2.vanished[k])
				}
			}
			if len(c2.vanished) != len(deleted) {
				t.Errorf("%d objects told vanished, want the %d deleted while down: %v", len(c2.vanished), len(deleted), c2.vanished)
			}
		})
	}
}

// snapshotRV returns the resourceVersion in the header of the snapshot at
// path, a JSON document near the start of the file.
func snapshotRV(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"resourceVersion":"([0-9]+)"`).FindSubmatch(b[:min(len(b), 64<<10)])
	if m == nil {
		t.Fatalf("no resourceVersion in the snapshot's header")
	}
	return string(m[1])
}

// TestUnusableSnapshotStartsCold starts syncers from a snapshot of another
// namespace, a truncated one and a damaged one: each must be refused and
// the sync be cold, and the snapshot replaced by a good one at the end.
func TestUnusableSnapshotStartsCold(t *testing.T) {
	srv := testbed.Shared(t)
	a, b := prepare(t, srv, 50, 64), prepare(t, srv, 60, 64)
	dir := t.TempDir()
	good := filepath.Join(dir, "a.snapshot")
	s, c, stop := startChecked(t, srv.Config(), a.ns, runtime.WithSnapshot(good))
	waitSynced(t, s, c, "", nil)
	stop()
	saved, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		content []byte
	}{
		{"AnotherNamespace", saved},
		{"Truncated", saved[:len(saved)*2/3]},
		{"Damaged", damage(saved)},
		{"Empty", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".snapshot")
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			var logged logLines
			s, c, stop := startChecked(t, srv.Config(), b.ns, runtime.WithSnapshot(path), runtime.WithLogger(logged.logger()))
			waitSynced(t, s, c, "", nil)
			if s.Mode() != runtime.ModeWatchList {
				t.Errorf("mode %s, want watchlist (cold)", s.Mode())
			}
			if s.Store().Len() != 60 {
				t.Errorf("%d objects stored, want the namespace's 60", s.Store().Len())
			}
			stop()
			c.checkViolations(t)
			if !strings.Contains(logged.String(), "snapshot not used") {
				t.Errorf("no log line saying the snapshot was not used:\n%s", logged.String())
			}
			// The next run of the same syncer starts warm from what this one saved.
			s, c, stop = startChecked(t, srv.Config(), b.ns, runtime.WithSnapshot(path))
			waitSynced(t, s, c, "", nil)
			if s.Mode() != runtime.ModeWarm {
				t.Errorf("next run: mode %s, want warm", s.Mode())
			}
			stop()
		})
	}
}

// damage flips one bit in the middle of b.
func damage(b []byte) []byte {
	d := slices.Clone(b)
	d[len(d)/2] ^= 0x10
	return d
}

// requestLog counts a client's requests by what they read.
type requestLog struct {
	mu   sync.Mutex
	reqs requestCounts
}

type requestCounts struct {
	watchLists, watches, lists, metadataLists, gets int
	watchesFrom                                     []string // the resourceVersion of each plain watch
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		q := r.URL.Query()
		l.mu.Lock()
		switch {
		case q.Get("watch") == "true" && q.Get("sendInitialEvents") == "true":
			l.reqs.watchLists++
		case q.Get("watch") == "true":
			l.reqs.watches++
			l.reqs.watchesFrom = append(l.reqs.watchesFrom, q.Get("resourceVersion"))
		case !strings.HasSuffix(r.URL.Path, "/configmaps"):
			l.reqs.gets++
		case strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList"):
			l.reqs.metadataLists++
		default:
			l.reqs.lists++
		}
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) counts() requestCounts {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reqs
	r.watchesFrom = slices.Clone(r.watchesFrom)
	return r
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// logLines is a logger's output, safe for concurrent use.
type logLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logLines) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		fmt.Fprintln(&l.b, prefix, args)
	}, funcr.Options{Verbosity: 1})
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fakeWarm is a fake server for warm starts: its first watch is a WatchList
// of a, b, c and d at 10, so that a first syncer saves a snapshot at 10;
// every later watch sends, after the reply of replyFirst (if any), the
// events of the test's channel until the client goes.
type fakeWarm struct {
	*fakeAPI
	path   string
	events chan *watchEvent
	// initial and end are what the first watch sends (a, b, c, d and the
	// end bookmark at 10 unless a test sets them before saveSnapshot).
	initial []*corev1.ConfigMap
	end     *corev1.ConfigMap
}

func newFakeWarm(t *testing.T, later func(send func(string, any), r *http.Request, n int) (ended bool)) *fakeWarm {
	f := &fakeWarm{fakeAPI: newFakeAPI(t), path: filepath.Join(t.TempDir(), "snapshot"), events: make(chan *watchEvent),
		initial: []*corev1.ConfigMap{fakeCM("a", 10), fakeCM("b", 10), fakeCM("c", 10), fakeCM("d", 10)}, end: endBookmark(10)}
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		if n == 1 {
			for _, o := range f.initial {
				send("ADDED", o)
			}
			send("BOOKMARK", f.end)
			hold(r)
			return
		}
		if later != nil && later(send, r, n) {
			return
		}
		for {
			select {
			case ev := <-f.events:
				send(ev.typ, ev.obj)
			case <-r.Context().Done():
				return
			}
		}
	}
	return f
}

// start runs a syncer with the snapshot, opts and a recorder.
func (f *fakeWarm) start(t *testing.T, opts ...runtime.Option) (*runtime.Syncer[*corev1.ConfigMap], *recorder) {
	return startSyncer(t, f.config(), append(opts, runtime.WithSnapshot(f.path))...)
}

// saveSnapshot runs a first syncer, with opts, to its sync and stops it:
// the snapshot holds f.initial (a, b, c and d at 10).
func (f *fakeWarm) saveSnapshot(t *testing.T, opts ...runtime.Option) {
	s, err := runtime.New[*corev1.ConfigMap](f.config(), configMaps, append(opts, runtime.WithSnapshot(f.path))...)
	if err != nil {
		t.Fatal(err)
	}
	stop := runSyncer(t, s)
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	stop()
}

// send plays events on the watch.
func (f *fakeWarm) send(evs ...*watchEvent) {
	for _, ev := range evs {
		f.events <- ev
	}
}

// gone answers 410 Gone on a watch, as a server does that no longer has
// the resourceVersion asked for.
func gone(send func(string, any), rv string) {
	send("ERROR", &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure,
		Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version: " + rv})
}

// TestWarmStartWaitsForObjectsFetchedAhead plays, on a fake server, a warm
// start whose snapshot's resourceVersion the server no longer has (410 on
// the watch from it), and whose GETs land after changes that the watch from the metadata LIST
// has yet to deliver: an object deleted since the LIST (d), one modified
// since (e), one deleted and created again since (f). The store runs ahead of the LIST for them, so OnSync must wait
// until the watch delivered those changes, and the deletion of f's former
// object must not remove the new one fetched already; the objects of the snapshot that
// are gone (c, d) must be told as inferred deletions.
func TestWarmStartWaitsForObjectsFetchedAhead(t *testing.T) {
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		rv := r.URL.Query().Get("resourceVersion")
		if n == 2 { // the warm start's watch from the snapshot: gone, as after a restart of the server
			if rv != "10" {
				t.Errorf("first warm watch from %q, want the snapshot's 10", rv)
			}
			gone(send, rv)
			return true
		}
		if rv != "100" {
			t.Errorf("watch from %q, want the metadata LIST's 100", rv)
		}
		return false
	})
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		switch name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]; name {
		case "configmaps": // the metadata-only LIST, at 100
			writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60), fakeCM("d", 70), fakeCM("e", 80), fakeCM("f", 90))
		case "b": // changed while down, not since the LIST
			_ = enc.Encode(fakeCM("b", 60))
		case "d": // deleted after the LIST, at 102
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "gone")
		case "e": // created while down, modified after the LIST, at 105
			_ = enc.Encode(fakeCM("e", 105))
		case "f": // deleted after the LIST at 104, created again at 107
			f := fakeCM("f", 107)
			f.UID = "uid-f-2"
			_ = enc.Encode(f)
		default:
			t.Errorf("unexpected request %s", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
		}
	}
	f.saveSnapshot(t)
	s, r := f.start(t)
	stored := func(name, rv string) func() bool {
		return func() bool { o, ok := s.Store().Get("ns", name); return ok && o.ResourceVersion == rv }
	}
	eventually(t, 10*time.Second, "the warm start to fetch b, e and f", func() bool {
		return stored("b", "60")() && stored("e", "105")() && stored("f", "107")()
	})
	f.send(&watchEvent{"MODIFIED", fakeCM("a", 101)}, &watchEvent{"DELETED", fakeCM("d", 102)}, &watchEvent{"MODIFIED", fakeCM("a", 103)},
		&watchEvent{"DELETED", fakeCM("f", 104)}, &watchEvent{"MODIFIED", fakeCM("e", 105)}, &watchEvent{"MODIFIED", fakeCM("a", 106)})
	eventually(t, 10*time.Second, "a@106", stored("a", "106"))
	if !stored("f", "107")() {
		t.Fatal("the deletion of f's former object (104) removed the object fetched at 107")
	}
	if s.HasSynced() {
		t.Fatal("synced before the watch delivered f's creation at 107")
	}
	f107 := fakeCM("f", 107)
	f107.UID = "uid-f-2"
	f.send(&watchEvent{"ADDED", f107})
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, want warm", s.Mode())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := slices.Clone(r.order)
	if len(calls) < 2 || calls[0] != "resync" || calls[len(calls)-1] != "sync" {
		t.Fatalf("handler calls %v: want OnResyncStarted first and OnSync last", calls)
	}
	between := calls[1 : len(calls)-1]
	slices.Sort(between)
	// a's updates may be folded into its add, if the handler had not got to it.
	between = slices.DeleteFunc(between, func(c string) bool { return c == "update:ns/a" })
	if want := []string{"add:ns/a", "add:ns/b", "add:ns/e", "add:ns/f", "delete:ns/c", "delete:ns/d"}; !slices.Equal(between, want) {
		t.Errorf("handler calls %v, want %v between OnResyncStarted and OnSync", calls, want)
	}
	if r.inferred["ns/c"] != 1 || r.inferred["ns/d"] != 1 {
		t.Errorf("inferred deletions %v, want c and d once", r.inferred)
	}
}

type watchEvent struct {
	typ string
	obj any
}

// writeMetadataList answers a metadata-only LIST at rv with objs.
func writeMetadataList(w http.ResponseWriter, rv int, objs ...*corev1.ConfigMap) {
	writeMetadataListAt(w, strconv.Itoa(rv), objs...)
}

// writeMetadataListAt answers a metadata-only LIST at rv with objs.
func writeMetadataListAt(w http.ResponseWriter, rv string, objs ...*corev1.ConfigMap) {
	items := []map[string]any{}
	for _, o := range objs {
		items = append(items, map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o.ObjectMeta})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
		"metadata": map[string]any{"resourceVersion": rv}, "items": items})
}

// TestWarmStartWatchesFromTheSnapshot plays, on a fake server, a warm start
// whose snapshot (a, b, c, d at 10) the server's watch still covers. Its
// metadata LIST at 100 shows a unchanged, b changed (55, then 60), c
// deleted (85) and created again (90), d changed (40) then deleted (64),
// e created (70) and changed (80); x lived and died in between (20, 62).
// The watch from 10 delivers all of it. The handler must see, before
// OnSync, the states at 100 only: no intermediate state, nothing of x, d
// and c's former object told gone once, as inferred deletions; OnSync
// once c's new object arrived, not before; then live events. No object
// may be fetched by GET.
func TestWarmStartWatchesFromTheSnapshot(t *testing.T) {
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if rv := r.URL.Query().Get("resourceVersion"); n > 2 || rv != "10" {
			t.Errorf("watch %d from %q, want one, from the snapshot's 10", n, rv)
		}
		return false
	})
	c2 := fakeCM("c", 90)
	c2.UID = "uid-c-2"
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		if !strings.HasSuffix(r.URL.Path, "/configmaps") {
			t.Errorf("unexpected request %s: no object needs a GET", r.URL)
			status(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no")
			return
		}
		writeMetadataList(w, 100, fakeCM("a", 10), fakeCM("b", 60), c2, fakeCM("e", 80))
	}
	f.saveSnapshot(t)
	s, r := f.start(t)
	f.send(&watchEvent{"ADDED", fakeCM("x", 20)}, &watchEvent{"MODIFIED", fakeCM("d", 40)}, &watchEvent{"MODIFIED", fakeCM("b", 55)},
		&watchEvent{"MODIFIED", fakeCM("b", 60)})
	// b@60 is applied after x@20 and d@40 and reaches the handler after
	// them: had they been applied, the store or the handler would show them.
	eventually(t, 10*time.Second, "the handler to get b@60", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.addRVs["ns/b@60"] == 1
	})
	for _, name := range []string{"x", "d"} {
		if o, ok := s.Store().Get("ns", name); ok {
			t.Errorf("%s@%s stored: an intermediate state before the LIST's", name, o.ResourceVersion)
		}
	}
	f.send(&watchEvent{"DELETED", fakeCM("x", 62)}, &watchEvent{"DELETED", fakeCM("d", 64)}, &watchEvent{"ADDED", fakeCM("e", 70)},
		&watchEvent{"MODIFIED", fakeCM("e", 80)}, &watchEvent{"DELETED", fakeCM("c", 85)})
	eventually(t, 10*time.Second, "e@80", func() bool { o, ok := s.Store().Get("ns", "e"); return ok && o.ResourceVersion == "80" })
	if s.HasSynced() {
		t.Fatal("synced before the watch delivered c's new object at 90")
	}
	f.send(&watchEvent{"ADDED", c2})
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, want warm", s.Mode())
	}
	var got []string
	for _, k := range s.Store().Keys() {
		o, _ := s.Store().Get(k.Namespace, k.Name)
		got = append(got, k.Name+"@"+o.ResourceVersion)
	}
	if want := []string{"a@10", "b@60", "c@90", "e@80"}; !slices.Equal(got, want) {
		t.Errorf("store at OnSync %v, want the LIST's %v", got, want)
	}
	if dup := r.duplicates(); len(dup) > 0 {
		t.Errorf("delivered twice: %v", dup)
	}
	f.send(&watchEvent{"MODIFIED", fakeCM("a", 101)}, &watchEvent{"DELETED", fakeCM("e", 102)})
	eventually(t, 10*time.Second, "the live events", func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.deletes["ns/e"] == 1 && r.addRVs["ns/a@101"] == 1
	})
	r.mu.Lock()
	defer r.mu.Unlock()
	calls := slices.Clone(r.order)
	i := slices.Index(calls, "sync")
	if i < 1 || calls[0] != "resync" {
		t.Fatalf("handler calls %v: want OnResyncStarted first, then OnSync", calls)
	}
	between := slices.Sorted(slices.Values(calls[1:i]))
	if want := []string{"add:ns/a", "add:ns/b", "add:ns/c", "add:ns/e", "delete:ns/c", "delete:ns/d"}; !slices.Equal(between, want) {
		t.Errorf("handler calls %v, want %v between OnResyncStarted and OnSync", calls, want)
	}
	if after := calls[i+1:]; !slices.Equal(after, []string{"update:ns/a", "delete:ns/e"}) {
		t.Errorf("handler calls after OnSync %v, want a's update and e's deletion", after)
	}
	if r.inferred["ns/c"] != 1 || r.inferred["ns/d"] != 1 || len(r.inferred) != 2 {
		t.Errorf("inferred deletions %v, want c's former object and d once", r.inferred)
	}
	if r.addRVs["ns/b@60"] != 1 || r.addRVs["ns/e@80"] != 1 || r.addRVs["ns/c@90"] != 1 {
		t.Errorf("object versions delivered %v: want b@60, e@80 and c@90, the states at the LIST", r.addRVs)
	}
}

// TestWarmStartCatchesAWatchThatSkipsAChange plays a server whose watch from
// the snapshot passes the LIST's resourceVersion without the state the LIST
// gave for b: the warm start must not sync on it, but report the server's
// fault and complete the resync cold, ending with the server's state.
func TestWarmStartCatchesAWatchThatSkipsAChange(t *testing.T) {
	f := newFakeWarm(t, func(send func(string, any), r *http.Request, n int) bool {
		if n == 3 { // the cold resync's WatchList
			send("ADDED", fakeCM("a", 101))
			send("ADDED", fakeCM("b", 60))
			send("BOOKMARK", endBookmark(101))
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
	f.send(&watchEvent{"DELETED", fakeCM("c", 20)}, &watchEvent{"DELETED", fakeCM("d", 30)}, &watchEvent{"MODIFIED", fakeCM("a", 101)})
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeWatchList {
		t.Errorf("mode %s, want watchlist: the resync completed cold", s.Mode())
	}
	if b, ok := s.Store().Get("ns", "b"); !ok || b.ResourceVersion != "60" || s.Store().Len() != 2 {
		t.Errorf("store %v, want a@101 and b@60", s.Store().Keys())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.resyncs != 1 || r.syncs != 1 {
		t.Errorf("%d OnResyncStarted and %d OnSync, want one of each", r.resyncs, r.syncs)
	}
	if len(r.errs) == 0 || runtime.Classify(r.errs[0]) != runtime.KindInternal {
		t.Errorf("errors %v, want the server's fault told as internal", r.errs)
	}
}

// TestWarmStartSurvivesAFailedList plays a server that fails the first
// metadata-only LIST (as one restarting or throttling might): the syncer
// retries, and still starts warm from its snapshot.
func TestWarmStartSurvivesAFailedList(t *testing.T) {
	f := newFakeWarm(t, nil)
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			status(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, "not now")
			return
		}
		writeMetadataList(w, 10, fakeCM("a", 10), fakeCM("b", 10), fakeCM("c", 10), fakeCM("d", 10))
	}
	f.saveSnapshot(t)
	s, r := f.start(t)
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != runtime.ModeWarm || s.Store().Len() != 4 {
		t.Errorf("mode %s with %d objects, want warm with a, b, c and d", s.Mode(), s.Store().Len())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.errs) != 1 || r.resyncs != 1 || r.syncs != 1 {
		t.Errorf("errors %v, %d OnResyncStarted, %d OnSync; want the LIST's failure, then one resync", r.errs, r.resyncs, r.syncs)
	}
}

// TestRunningSyncerResyncsWarm cuts a synced syncer off (a proxy that
// holds its requests) while writes flow, and restarts kube-apiserver (etcd
// kept) meanwhile: when the syncer comes back, its watch from the last
// resourceVersion answers 410 Gone, as the restarted server's watch cache
// starts after it. The syncer must resync warm from its store (a
// metadata-only LIST and GETs of what changed), not stream every object
// again; handlers must get only what changed (the checker flags an OnAdd
// for an object they hold), and the store and the state rebuilt from
// handler calls must equal a quorum LIST.
func TestRunningSyncerResyncsWarm(t *testing.T) {
	srv := testbed.Start(t)
	f := prepare(t, srv, 4000, 512)
	proxy := testbed.StartProxy(t, srv)
	reqs := &requestLog{}
	cfg := proxy.Config()
	cfg.Wrap(reqs.wrap)
	w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 200, KeepExisting: true})
	s, c, stop := startChecked(t, cfg, f.ns, faultOptions...)
	waitSynced(t, s, c, "", nil)
	waitLive(t, c)
	before := reqs.counts()
	proxy.Pause()
	fault := time.Now()
	away := w.Stats()
	eventually(t, 20*time.Second, "writes while cut off", func() bool { return w.Stats().Writes() > away.Writes()+300 })
	srv.RestartAPIServer(t)
	proxy.Resume()
	t.Logf("cut off for %s", time.Since(fault).Round(time.Millisecond))
	f.finish(t, s, c, stop, w, fault, func(testbed.WriterStats) {
		if c.errors(runtime.KindExpired) == 0 {
			t.Errorf("no 410 Gone reported: the fault did not force a resync (%s)", c)
		}
	})
	after := reqs.counts()
	t.Logf("requests since the fault: %d metadata-only LISTs, %d GETs, %d watches", after.metadataLists-before.metadataLists,
		after.gets-before.gets, after.watches-before.watches)
	if n := after.watchLists + after.lists - before.watchLists - before.lists; n > 0 {
		t.Errorf("%d WatchList or LIST requests of whole objects after the fault: the store was a better snapshot", n)
	}
	if after.metadataLists == before.metadataLists || after.gets == before.gets {
		t.Error("no metadata-only LIST or no GET after the fault: the resync was not warm")
	}
	if s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s after the fault, want warm", s.Mode())
	}
}
