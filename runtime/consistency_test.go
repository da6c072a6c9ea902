package runtime_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// The consistency test's bounds. A syncer that is not synced syncWithin
// after it started (or after its server came back) fails at once rather
// than when the test binary times out.
const (
	writeRate      = 300 // writes per second while faults are injected
	minWrites      = 3 * writeRate
	syncWithin     = 45 * time.Second
	catchUpWithin  = 30 * time.Second
	convergeWithin = 30 * time.Second
)

// faultOptions are the options of every syncer of the consistency test: a
// shorter backoff cap than the default 30s keeps the test short.
var faultOptions = []runtime.Option{runtime.WithBackoff(100*time.Millisecond, 5*time.Second)}

// TestConsistencyUnderFaults runs a syncer while a writer creates, updates
// and deletes ConfigMaps at writeRate and a fault is injected, then checks
// that the store and the state rebuilt from handler calls alone both equal
// a quorum LIST (nothing missing, extra or stale), that no handler call
// broke the contract (an OnAdd for a present key, an OnUpdate or OnDelete
// for an absent one, an OnUpdate going back in resourceVersion), and logs
// the time from the fault to caught-up (the store reflecting every write up
// to a quorum LIST while the writes go on).
func TestConsistencyUnderFaults(t *testing.T) {
	srv := testbed.Shared(t)

	// The syncer starts on a namespace of 3000 objects of 8 KiB (24 MiB:
	// a fast machine streams it in a few tens of milliseconds, which the
	// kill must fall within); kube-apiserver is killed (SIGKILL, no drain)
	// as soon as the first object was delivered, then started again.
	t.Run("KillDuringInitialStream", func(t *testing.T) {
		f := prepare(t, srv, 3000, 8<<10)
		w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 3000})
		s, c, stop := startChecked(t, isolated(t, srv), f.ns, faultOptions...)
		select {
		case <-c.firstAdd:
		case <-time.After(syncWithin):
			t.Fatalf("no object delivered %s after the start: %s", syncWithin, c)
		}
		srv.KillAPIServer()
		fault := time.Now()
		early := s.HasSynced()
		srv.StartAPIServer(t) // before any Fatal: the server is shared
		t.Logf("apiserver back %s after the kill", time.Since(fault).Round(time.Millisecond))
		if early {
			t.Fatal("the syncer synced before the kill: the fault missed the initial stream (use more objects)")
		}
		waitSynced(t, s, c, "after the restart", nil)
		f.finish(t, s, c, stop, w, fault, func(st testbed.WriterStats) {
			if st.Errors == 0 {
				t.Error("the writer saw no error: was the apiserver down?")
			}
		})
	})

	// kube-apiserver is killed while the syncer watches and writes flow.
	t.Run("KillDuringWatch", func(t *testing.T) {
		f := prepare(t, srv, 1000, 128)
		w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 1000})
		s, c, stop := startChecked(t, isolated(t, srv), f.ns, faultOptions...)
		waitSynced(t, s, c, "", nil)
		waitLive(t, c)
		srv.KillAPIServer()
		fault := time.Now()
		srv.StartAPIServer(t)
		t.Logf("apiserver back %s after the kill", time.Since(fault).Round(time.Millisecond))
		f.finish(t, s, c, stop, w, fault, func(st testbed.WriterStats) {
			if st.Errors == 0 {
				t.Error("the writer saw no error: was the apiserver down?")
			}
		})
	})

	// The syncer is cut off by a proxy (open streams cut, requests refused)
	// while writes and deletes go on; etcd is compacted, and kube-apiserver
	// restarted so that its watch cache forgets the old resourceVersions
	// (a watch cache serves a watch from a resourceVersion that etcd has
	// compacted for as long as it holds the events, 75s or more: compaction
	// alone does not make the syncer's resume answer 410). The syncer comes
	// back to 410 Gone, relists, and must report the objects deleted while
	// it was away.
	t.Run("CompactionWhileCutOff", func(t *testing.T) {
		f := prepare(t, srv, 1000, 128)
		proxy := testbed.StartProxy(t, srv)
		w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 1000})
		s, c, stop := startChecked(t, proxy.Config(), f.ns, faultOptions...)
		waitSynced(t, s, c, "", nil)
		waitLive(t, c)
		proxy.Pause()
		fault := time.Now()
		away := w.Stats()
		eventually(t, 20*time.Second, "writes and deletes while cut off", func() bool {
			st := w.Stats()
			return st.Writes() > away.Writes()+500 && st.Deletes > away.Deletes+60
		})
		srv.Compact(t)
		srv.RestartAPIServer(t)
		proxy.Resume()
		t.Logf("cut off for %s", time.Since(fault).Round(time.Millisecond))
		f.finish(t, s, c, stop, w, fault, func(testbed.WriterStats) {
			if c.errors(runtime.KindExpired) == 0 {
				t.Errorf("no 410 Gone reported: the fault did not force a relist (%s)", c)
			}
		})
	})

	// A proxy ends every watch stream after 16 MiB, mid-event; the
	// initial WatchList stream of 2000 objects of 64 KiB (128 MiB) does not
	// fit in one stream. (A cut by age, as a load balancer with a maximum
	// stream duration makes, missed on a machine fast enough to send the
	// whole stream before it.)
	t.Run("StreamsCutShort", func(t *testing.T) {
		f := prepare(t, srv, 2000, 64<<10)
		proxy := testbed.StartProxy(t, srv)
		proxy.CutStreamsAfter(16 << 20)
		// The writer leaves the big objects alone: replaced by its small
		// ones, they would shrink the initial stream until it fits.
		w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, KeepExisting: true})
		fault := time.Now()
		s, c, stop := startChecked(t, proxy.Config(), f.ns, faultOptions...)
		waitSynced(t, s, c, "behind a proxy that cuts every stream after 16 MiB", func() string {
			return "streams cut: " + itoa(proxy.StreamsCut())
		})
		// The fault is a WatchList stream that ended before its end bookmark,
		// which the syncer reports as unavailable once it gives up on
		// WatchList for this resync; the proxy ends every initial stream
		// (or, on a loaded machine, the apiserver first: it closes a
		// watcher that falls behind), so the syncer must have seen one.
		cuts, ended := proxy.StreamsCut(), c.errors(runtime.KindUnavailable)
		f.finish(t, s, c, stop, w, fault, func(testbed.WriterStats) {
			if ended == 0 {
				t.Errorf("no stream ended before its end bookmark: the fault was not exercised (%s)", c)
			}
			t.Logf("%d streams ended early before the sync (%d cut by the proxy), %d cut in all", ended, cuts, proxy.StreamsCut())
		})
	})

	// A proxy drops the initial-events-end bookmark while writes flow, so
	// the stream never goes quiet. Once with default options; once with the
	// wait for the end bookmark bounded to 5s (WithInitialEventsTimeout), so
	// that the fallback to LIST within the same resync is met under writes
	// whatever the default bound: objects deleted between the last streamed
	// event and the LIST must be swept.
	for _, tc := range []struct {
		name, what string
		opts       []runtime.Option
	}{
		{"EndBookmarkDropped", "behind a proxy that drops the end bookmark, with writes flowing", nil},
		{"EndBookmarkDroppedFallback", "behind a proxy that drops the end bookmark, with a 5s bound",
			[]runtime.Option{runtime.WithInitialEventsTimeout(5 * time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := prepare(t, srv, 1000, 128)
			proxy := testbed.StartProxy(t, srv)
			proxy.DropInitialEventsBookmark(true)
			w := testbed.StartWriter(t, srv.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 1000})
			fault := time.Now()
			s, c, stop := startChecked(t, proxy.Config(), f.ns, append(faultOptions[:len(faultOptions):len(faultOptions)], tc.opts...)...)
			waitSynced(t, s, c, tc.what, func() string {
				return "bookmarks dropped: " + itoa(proxy.BookmarksDropped())
			})
			f.finish(t, s, c, stop, w, fault, func(testbed.WriterStats) {
				if proxy.BookmarksDropped() == 0 {
					t.Error("the proxy dropped no bookmark: the fault was not exercised")
				}
			})
		})
	}

	// A server with the WatchList gate off refuses WatchList (422): the
	// syncer falls back to paginated LIST + WATCH under writes.
	t.Run("WatchListGateOff", func(t *testing.T) {
		off := testbed.Start(t, testbed.WithAPIServerFlags("--feature-gates=WatchList=false"))
		f := prepare(t, off, 1000, 128)
		w := testbed.StartWriter(t, off.Config(), f.ns, testbed.WriterOptions{Rate: writeRate, Population: 1000})
		fault := time.Now()
		s, c, stop := startChecked(t, off.Config(), f.ns, append(faultOptions, runtime.WithPageSize(200))...)
		waitSynced(t, s, c, "against a server with the WatchList gate off", nil)
		f.finish(t, s, c, stop, w, fault, func(testbed.WriterStats) {
			if s.Mode() != runtime.ModeList {
				t.Errorf("Mode() = %s, want list", s.Mode())
			}
		})
	})
}

// fault is one subtest's namespace and the client that checks it.
type fault struct {
	mc metadata.Interface // admin, straight to the server
	ns string
}

// prepare creates a namespace holding n ConfigMaps of size bytes of data.
func prepare(t *testing.T, srv *testbed.Server, n, size int) fault {
	t.Helper()
	cfg := srv.Config()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs := kubernetes.NewForConfigOrDie(cfg)
	f := fault{mc: metadata.NewForConfigOrDie(cfg), ns: srv.Namespace(t)}
	started := time.Now()
	testbed.FillConfigMaps(t, cs, f.ns, n, size)
	t.Logf("%d objects created in %s", n, time.Since(started).Round(time.Millisecond))
	return f
}

// waitSynced fails the test if s does not sync within syncWithin; more,
// if not nil, tells what the fault did.
func waitSynced(t *testing.T, s *runtime.Syncer[*corev1.ConfigMap], c *checker, where string, more func() string) {
	t.Helper()
	started := time.Now()
	if err := s.WaitForSync(ctxTimeout(t, syncWithin)); err != nil {
		extra := ""
		if more != nil {
			extra = "; " + more()
		}
		t.Fatalf("not synced %s %s: %v; %s%s", syncWithin, where, err, c, extra)
	}
	t.Logf("synced in %s", time.Since(started).Round(time.Millisecond))
}

// waitLive waits until live updates reach the handler.
func waitLive(t *testing.T, c *checker) {
	t.Helper()
	u0, _ := c.counts()
	eventually(t, 10*time.Second, "live updates to reach the handler", func() bool {
		u, _ := c.counts()
		return u >= u0+50
	})
}

// finish waits until the store has caught up with the writes, stops the
// writer, checks that the store and the rebuilt state converge to the
// server's, stops the syncer and checks the handler calls; faultChecks
// asserts that the fault did happen.
func (f fault) finish(t *testing.T, s *runtime.Syncer[*corev1.ConfigMap], c *checker, stop func(),
	w *testbed.Writer, fault time.Time, faultChecks func(testbed.WriterStats)) {
	t.Helper()
	caught := waitCaughtUp(t, f.mc, f.ns, s, c, catchUpWithin)
	t.Logf("caught up %s after the fault", caught.Sub(fault).Round(time.Millisecond))
	// Keep the syncer under writes for a while after it caught up, so that
	// faults that last (a proxy, a server flag) are met by the watch too.
	eventually(t, 20*time.Second, "the writer to do "+itoa(minWrites)+" writes", func() bool {
		return w.Stats().Writes() >= minWrites
	})
	st := w.Stop()
	t.Logf("writer: %s", st)
	faultChecks(st)
	checkConverged(t, f.mc, f.ns, s, c, convergeWithin)
	stop()
	c.checkViolations(t)
	t.Log(c)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// isolated returns a configuration for srv through a proxy that passes
// everything: what the syncer learns of the server's modes (a fault may
// turn WatchList off for a while) is kept per host, so the tests that share
// srv directly are not affected by this one's faults.
func isolated(t *testing.T, srv *testbed.Server) *rest.Config {
	return testbed.StartProxy(t, srv).Config()
}
