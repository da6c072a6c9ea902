package runtime_test

import (
	"context"
	"net/http"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// Faults of servers and proxies, played by a fake API server.

// A WatchList stream whose end bookmark never comes is completed with a
// LIST, and an object the stream delivered but the LIST no longer holds
// (deleted between the two) is deleted from the store and reported as an
// inferred deletion. Live events flow all along, so the stream never goes
// quiet: the bookmark is due once they start, not after silence.
func TestFallbackListSweepsWhatTheStreamDelivered(t *testing.T) {
	f := newFakeAPI(t)
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		if n == 1 { // the WatchList request, whose bookmark a proxy drops
			send("ADDED", fakeCM("a", 1))
			send("ADDED", fakeCM("b", 2))
			for rv := 3; r.Context().Err() == nil; rv++ {
				send("MODIFIED", fakeCM("a", rv))
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
		hold(r)
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		writeList(w, 1000, "", nil, fakeCM("a", 999)) // b is gone
	}
	started := time.Now()
	s, rec := startSyncer(t, f.config(), runtime.WithBookmarkTimeout(300*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	if took := time.Since(started); took > 5*time.Second {
		t.Errorf("synced after %s; the bookmark was due 300ms after live events began", took)
	}
	if _, ok := s.Store().Get("ns", "b"); ok || s.Store().Len() != 1 {
		t.Fatalf("store holds %v, want only ns/a", s.Store().Keys())
	}
	if s.Mode() != runtime.ModeList {
		t.Fatalf("Mode() = %s, want list", s.Mode())
	}
	rec.snapshot(func(r *recorder) bool {
		// Told that b is gone, by an inferred deletion, once it was told
		// of b: a handler that had not taken b's add when the sweep
		// inferred the deletion is told of neither (its queue folds them;
		// docs/handlers.md), as a loaded machine may have it.
		if told := r.adds["ns/b"]; told > 1 || r.deletes["ns/b"] != told || r.inferred["ns/b"] != told {
			t.Errorf("ns/b: %d OnAdd, %d OnDelete, %d inferred; want 1, 1, 1 (0, 0, 0 if the handler was behind)",
				told, r.deletes["ns/b"], r.inferred["ns/b"])
		}
		if r.adds["ns/b"] == 0 {
			t.Logf("the handler was behind: b's add and inferred deletion were folded")
		}
		if r.resyncs != 1 || r.syncs != 1 {
			t.Errorf("%d OnResyncStarted, %d OnSync; want 1, 1", r.resyncs, r.syncs)
		}
		return true
	})
}

// When the server counted the objects just before the stream, the end
// bookmark is due once that many arrived, even while only creations flow.
func TestBookmarkDueOnceTheCountArrived(t *testing.T) {
	f := newFakeAPI(t)
	f.count = func(w http.ResponseWriter, r *http.Request) {
		writeList(w, 10, "next", new(int64(1)), fakeCM("a", 1))
	}
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		if n == 1 {
			send("ADDED", fakeCM("a", 1))
			send("ADDED", fakeCM("b", 2))
			for i := 3; r.Context().Err() == nil; i++ { // live creations, all ADDED
				send("ADDED", fakeCM("new-"+time.Now().Format("150405.000000"), 10+i))
				time.Sleep(20 * time.Millisecond)
			}
			return
		}
		hold(r)
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		writeList(w, 1000, "", nil, fakeCM("a", 1), fakeCM("b", 2))
	}
	s, _ := startSyncer(t, f.config(), runtime.WithBookmarkTimeout(300*time.Millisecond))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	if s.Store().Len() != 2 {
		t.Fatalf("store holds %v, want a and b", s.Store().Keys())
	}
}

// A server that counts sixteen million objects, for the WatchList's progress
// and for the paginated LIST's, costs the Syncer no more than its real
// objects, and does not panic it (the store reserves room for what it is
// told, within a bound).
func TestAbsurdCountsAreHarmless(t *testing.T) {
	const absurd = int64(1) << 24 // the store's map for as many would take 800 MiB
	// The live heap this test adds, after a collection: the process's heap
	// holds what earlier tests left, live or garbage not yet collected (the
	// whole package run again with -count went past 512 MiB here).
	liveHeap := func() int64 {
		var m goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	base := liveHeap()
	for _, watchList := range []bool{true, false} {
		f := newFakeAPI(t)
		f.count = func(w http.ResponseWriter, r *http.Request) {
			writeList(w, 10, "next", new(absurd), fakeCM("a", 1))
		}
		f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
			send := startWatch(w)
			if watchList && n == 1 {
				send("ADDED", fakeCM("a", 1))
				send("BOOKMARK", endBookmark(10))
			}
			hold(r)
		}
		f.list = func(w http.ResponseWriter, r *http.Request, n int) {
			if r.URL.Query().Get("continue") == "" {
				writeList(w, 10, "next", new(absurd), fakeCM("a", 1))
				return
			}
			writeList(w, 10, "", nil, fakeCM("b", 2))
		}
		opts := []runtime.Option{}
		if !watchList {
			opts = append(opts, runtime.WithoutWatchList())
		}
		s, _ := startSyncer(t, f.config(), opts...)
		if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
			t.Fatalf("watchList %v: no sync: %v", watchList, err)
		}
		if grew := liveHeap() - base; grew > 256<<20 {
			t.Errorf("watchList %v: the live heap grew by %d MiB while syncing two objects", watchList, grew>>20)
		}
	}
}

// A 410 Gone on every watch relists at once the first time, then backs off:
// no hot loop of full LISTs against the server.
func TestRepeatedExpiryBacksOff(t *testing.T) {
	f := newFakeAPI(t)
	var mu sync.Mutex
	var relists []time.Time // LISTs of whole objects; a warm resync's metadata-only LIST is refused
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		if isMetadataList(r) {
			status(w, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable, "no metadata-only LIST here")
			return
		}
		mu.Lock()
		relists = append(relists, time.Now())
		mu.Unlock()
		writeList(w, 10, "", nil, fakeCM("a", 1))
	}
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		status(w, http.StatusGone, metav1.StatusReasonExpired, "too old resource version")
	}
	s, rec := startSyncer(t, f.config(), runtime.WithoutWatchList(), runtime.WithBackoff(100*time.Millisecond, time.Second))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Relists 1 and 2 come at once; then the waits grow: 100ms, 200ms, 400ms
	// at least (jitter only adds). A hot loop makes them all in milliseconds.
	eventually(t, 20*time.Second, "five relists", func() bool { mu.Lock(); defer mu.Unlock(); return len(relists) >= 5 })
	mu.Lock()
	defer mu.Unlock()
	if d := relists[4].Sub(relists[1]); d < 600*time.Millisecond {
		t.Fatalf("relists 2 to 5 within %s after repeated 410s; want a growing backoff (>= 600ms)", d)
	}
	rec.snapshot(func(r *recorder) bool {
		for _, err := range r.errs {
			if runtime.Classify(err) != runtime.KindExpired {
				t.Errorf("error %v, want expired", err)
			}
		}
		return true
	})
}

// A 410 on a later page of a paginated LIST (the continue token expired)
// reads the LIST again in one piece, as client-go's pager does.
func TestExpiredContinueReadsTheListWhole(t *testing.T) {
	f := newFakeAPI(t)
	var whole atomic.Bool
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		q := r.URL.Query()
		switch {
		case q.Get("continue") != "":
			status(w, http.StatusGone, metav1.StatusReasonExpired, "The provided continue parameter is too old")
		case q.Get("limit") == "2":
			writeList(w, 10, "page-2", new(int64(1)), fakeCM("a", 1), fakeCM("b", 2))
		default:
			whole.Store(true)
			writeList(w, 12, "", nil, fakeCM("a", 1), fakeCM("b", 2), fakeCM("c", 11))
		}
	}
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) { startWatch(w); hold(r) }
	s, rec := startSyncer(t, f.config(), runtime.WithoutWatchList(), runtime.WithPageSize(2))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	if !whole.Load() || s.Store().Len() != 3 {
		t.Fatalf("whole LIST read: %v; store %v", whole.Load(), s.Store().Keys())
	}
	if d := rec.duplicates(); len(d) > 0 {
		t.Fatalf("delivered twice: %v", d)
	}
}

// WatchList streams that a proxy ends before their initial events do, every
// time, are given up after a few attempts for LIST + WATCH; the attempts
// that delivered events are not failures, so no backoff slows them; the
// handlers see one resync.
func TestStreamsCutBeforeTheirEndFallBackToList(t *testing.T) {
	f := newFakeAPI(t)
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		if r.URL.Query().Get("sendInitialEvents") == "true" {
			send("ADDED", fakeCM("a", 1)) // and the proxy cuts the stream
			return
		}
		hold(r)
	}
	f.list = func(w http.ResponseWriter, r *http.Request, n int) {
		writeList(w, 10, "", nil, fakeCM("a", 1), fakeCM("b", 2))
	}
	s, rec := startSyncer(t, f.config(), runtime.WithBackoff(2*time.Second, 10*time.Second))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatalf("no sync: %v", err)
	}
	if s.Mode() != runtime.ModeList || s.Store().Len() != 2 {
		t.Fatalf("mode %s, store %v; want list, a and b", s.Mode(), s.Store().Keys())
	}
	rec.snapshot(func(r *recorder) bool {
		if r.resyncs != 1 || r.syncs != 1 || r.adds["ns/a"] != 1 {
			t.Errorf("%d OnResyncStarted, %d OnSync, %d OnAdd(a); want 1, 1, 1", r.resyncs, r.syncs, r.adds["ns/a"])
		}
		return true
	})
}

// Watches that end at once with nothing back off; they are not progress.
func TestWatchesEndingAtOnceBackOff(t *testing.T) {
	f := newFakeAPI(t)
	f.list = func(w http.ResponseWriter, r *http.Request, n int) { writeList(w, 10, "", nil, fakeCM("a", 1)) }
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) { startWatch(w) }
	s, _ := startSyncer(t, f.config(), runtime.WithoutWatchList(), runtime.WithBackoff(100*time.Millisecond, time.Second))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Watches 2..6 wait 100, 200, 400, 800ms at least: a backoff, not a loop.
	eventually(t, 20*time.Second, "six watches", func() bool { _, w := f.counts(); return w >= 6 })
	if d := f.between(&f.watches, 2, 6); d < time.Second {
		t.Fatalf("watches 2 to 6 within %s, each ending at once; want a growing backoff (>= 1s)", d)
	}
}

// A server or proxy that answers every watch with a bookmark and closes,
// with no client rate limit (QPS -1): a bookmark that changes nothing is no
// progress, so the watches back off instead of spinning.
func TestWatchesEndingAfterABookmarkBackOff(t *testing.T) {
	f := newFakeAPI(t)
	f.list = func(w http.ResponseWriter, r *http.Request, n int) { writeList(w, 10, "", nil, fakeCM("a", 1)) }
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		send := startWatch(w)
		send("BOOKMARK", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{ResourceVersion: "10"}})
	}
	s, _ := startSyncer(t, f.config(), runtime.WithoutWatchList(), runtime.WithBackoff(100*time.Millisecond, time.Second))
	if err := s.WaitForSync(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	_, before := f.counts()
	started := time.Now()
	eventually(t, 20*time.Second, "five more watches", func() bool { _, w := f.counts(); return w >= before+5 })
	if d := time.Since(started); d < 700*time.Millisecond {
		t.Fatalf("5 watches within %s, each a bookmark and a close; want a growing backoff (>= 700ms)", d)
	}
}

// A 429 with Retry-After on a watch is waited out as the server asked, and
// the server's warnings reach the client's warning handler, and the
// client's rate limiter is asked: watches go through the REST client.
func TestWatchHonoursRetryAfterAndWarnings(t *testing.T) {
	f := newFakeAPI(t)
	var first time.Time
	var waited atomic.Int64
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			status(w, http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, "slow down")
			return
		}
		if n == 2 {
			waited.Store(int64(time.Since(first)))
		}
		w.Header().Set("Warning", `299 - "configmaps are watched too much"`)
		send := startWatch(w)
		send("ADDED", fakeCM("a", 1))
		send("BOOKMARK", endBookmark(2))
		hold(r)
	}
	cfg := f.config()
	warnings := make(chan string, 10)
	cfg.WarningHandler = warningFunc(func(msg string) { warnings <- msg })
	limiter := &countingLimiter{RateLimiter: flowcontrol.NewFakeAlwaysRateLimiter()}
	cfg.RateLimiter = limiter
	s, _ := startSyncer(t, cfg)
	if err := s.WaitForSync(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if d := time.Duration(waited.Load()); d < 900*time.Millisecond {
		t.Errorf("retried the watch after %s; the server asked for 1s", d)
	}
	if _, watches := f.counts(); limiter.waits.Load() < int64(watches) {
		t.Errorf("the client's rate limiter was asked %d times for %d watches", limiter.waits.Load(), watches)
	}
	select {
	case msg := <-warnings:
		if msg != "configmaps are watched too much" {
			t.Errorf("warning %q", msg)
		}
	case <-time.After(5 * time.Second):
		t.Error("the server's warning never reached the warning handler")
	}
}

// countingLimiter counts the requests that asked the client's rate limiter.
type countingLimiter struct {
	flowcontrol.RateLimiter
	waits atomic.Int64
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.waits.Add(1)
	return l.RateLimiter.Wait(ctx)
}

type warningFunc func(string)

func (f warningFunc) HandleWarningHeader(code int, agent, text string) { f(text) }

// A protobuf answer to a type that has no protobuf methods (a CRD type) is
// a decode error, retried, never a panic.
func TestProtobufAnswerForJSONOnlyTypeIsAnError(t *testing.T) {
	f := newFakeAPI(t)
	f.watch = func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf;stream=watch")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte{0, 0, 0, 6, 10, 5, 'A', 'D', 'D', 'E'})
		w.(http.Flusher).Flush()
		hold(r)
	}
	s, err := runtime.New[*jsonOnly](f.config(), jsonOnlyResource, runtime.WithBackoff(50*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 100)
	s.AddHandler(runtime.HandlerFuncs[*jsonOnly]{ErrorFunc: func(err error) {
		select {
		case errs <- err:
		default:
		}
	}})
	runSyncer(t, s)
	select {
	case err := <-errs:
		if runtime.Classify(err) != runtime.KindDecode {
			t.Fatalf("error %v, want a decode error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no error reported")
	}
}

// New rejects options that cannot work, and a NewList whose items are not T.
func TestNewRejectsBadOptions(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"}
	for name, opts := range map[string][]runtime.Option{
		"negative watch timeout":  {runtime.WithWatchTimeout(-1)},
		"zero backoff":            {runtime.WithBackoff(0, time.Second)},
		"backoff cap below base":  {runtime.WithBackoff(time.Second, time.Millisecond)},
		"zero bookmark timeout":   {runtime.WithBookmarkTimeout(0)},
		"negative page size":      {runtime.WithPageSize(-1)},
		"nil metrics":             {runtime.WithMetrics(nil)},
		"snapshot folder missing": {runtime.WithSnapshot("/nonexistent/folder/snapshot")},
		"zero snapshot interval":  {runtime.WithSnapshot(filepath.Join(t.TempDir(), "s")), runtime.WithSnapshotInterval(0)},
		"negative resync period":  {runtime.WithResyncPeriod(-time.Second)},
		"negative drift check":    {runtime.WithDriftCheck(-time.Second)},
		"an index name twice": {
			runtime.WithIndex("owner", func(*corev1.ConfigMap) []string { return nil }),
			runtime.WithIndex("owner", func(*corev1.ConfigMap) []string { return nil }),
		},
	} {
		if _, err := runtime.New[*corev1.ConfigMap](cfg, configMaps, opts...); err == nil {
			t.Errorf("%s: New accepted it", name)
		}
	}
	wrong := configMaps
	wrong.NewList = func() kruntime.Object { return &corev1.SecretList{} }
	if _, err := runtime.New[*corev1.ConfigMap](cfg, wrong); err == nil {
		t.Error("New accepted a NewList of Secrets for ConfigMaps")
	}
	if _, err := runtime.New[*corev1.ConfigMap](cfg, configMaps); err != nil {
		t.Errorf("New with defaults: %v", err)
	}
}
