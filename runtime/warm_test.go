package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
// sync warm, without a WatchList or a LIST of whole objects, fetching no
// more objects than changed; tell its handler of each object deleted while
// down; and end, like a cold start, with the store and the state rebuilt
// from handler calls equal to a quorum LIST.
func TestWarmRestart(t *testing.T) {
	srv := testbed.Shared(t)
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

	// While no syncer runs.
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ch, err := testbed.ChurnConfigMaps(context.Background(), cs, f.ns, churn)
	if err != nil {
		t.Fatal(err)
	}
	changed, deleted, created := ch.Changed, ch.Deleted, ch.Created
	srv.Compact(t)

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
	if limit := int64(len(changed)+len(created)) + writesBefore; int64(r.gets) > limit || r.gets < len(changed)+len(created) {
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
	return l.reqs
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

// TestWarmStartWaitsForObjectsFetchedAhead plays, on a fake server, a warm
// start whose GETs land after changes that the watch from the metadata LIST
// has yet to deliver: an object deleted since the LIST (d), one modified
// since (e), one deleted and created again since (f). The store runs ahead of the LIST for them, so OnSync must wait
// until the watch delivered those changes, and the deletion of f's former
// object must not remove the new one fetched already; the objects of the snapshot that
// are gone (c, d) must be told as inferred deletions.
func TestWarmStartWaitsForObjectsFetchedAhead(t *testing.T) {
	f := newFakeAPI(t)
	path := filepath.Join(t.TempDir(), "snapshot")
	events := make(chan *watchEvent)
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		if n == 1 { // the first run's WatchList
			for _, name := range []string{"a", "b", "c", "d"} {
				send("ADDED", fakeCM(name, 10))
			}
			send("BOOKMARK", endBookmark(10))
			hold(r)
			return
		}
		if rv := r.URL.Query().Get("resourceVersion"); rv != "100" {
			t.Errorf("watch from %q, want the metadata LIST's 100", rv)
		}
		for {
			select {
			case ev := <-events:
				send(ev.typ, ev.obj)
			case <-r.Context().Done():
				return
			}
		}
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		switch name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]; name {
		case "configmaps": // the metadata-only LIST, at 100
			items := []map[string]any{}
			for _, o := range []*corev1.ConfigMap{fakeCM("a", 10), fakeCM("b", 60), fakeCM("d", 70), fakeCM("e", 80), fakeCM("f", 90)} {
				items = append(items, map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": o.ObjectMeta})
			}
			_ = enc.Encode(map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList",
				"metadata": map[string]any{"resourceVersion": "100"}, "items": items})
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
	start := func() (*runtime.Syncer[*corev1.ConfigMap], *recorder, func()) {
		s, err := runtime.New[*corev1.ConfigMap](f.config(), configMaps, runtime.WithSnapshot(path))
		if err != nil {
			t.Fatal(err)
		}
		r := newRecorder()
		s.AddHandler(r)
		return s, r, runSyncer(t, s)
	}
	s, _, stop := start()
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	stop()

	s, r, _ := start()
	stored := func(name, rv string) func() bool {
		return func() bool { o, ok := s.Store().Get("ns", name); return ok && o.ResourceVersion == rv }
	}
	eventually(t, 10*time.Second, "the warm start to fetch b, e and f", func() bool {
		return stored("b", "60")() && stored("e", "105")() && stored("f", "107")()
	})
	for _, ev := range []*watchEvent{{"MODIFIED", fakeCM("a", 101)}, {"DELETED", fakeCM("d", 102)}, {"MODIFIED", fakeCM("a", 103)},
		{"DELETED", fakeCM("f", 104)}, {"MODIFIED", fakeCM("e", 105)}, {"MODIFIED", fakeCM("a", 106)}} {
		events <- ev
	}
	eventually(t, 10*time.Second, "a@106", stored("a", "106"))
	if !stored("f", "107")() {
		t.Fatal("the deletion of f's former object (104) removed the object fetched at 107")
	}
	if s.HasSynced() {
		t.Fatal("synced before the watch delivered f's creation at 107")
	}
	f107 := fakeCM("f", 107)
	f107.UID = "uid-f-2"
	events <- &watchEvent{"ADDED", f107}
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
