package runtime_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// lagCounted keeps what runtime.LagMetrics was told.
type lagCounted struct {
	runtime.NopMetrics
	stalls atomic.Int64
	last   atomic.Int64 // nanoseconds
}

func (m *lagCounted) Lagged(behind time.Duration, _ string) { m.last.Store(int64(behind)) }
func (m *lagCounted) WatchStalled()                         { m.stalls.Add(1) }

// caughtLags polls s.Lag until n probes that the store caught up with
// were seen, and returns their lags.
func caughtLags(t *testing.T, s *runtime.Syncer[*corev1.ConfigMap], n int, within time.Duration) []time.Duration {
	t.Helper()
	var out []time.Duration
	var seen time.Time
	deadline := time.Now().Add(within)
	for len(out) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d caught probes in %s, want %d (last lag %+v)", len(out), within, n, lagOf(s))
		}
		if l, ok := s.Lag(); ok && l.Caught && l.ProbedAt.After(seen) {
			seen = l.ProbedAt
			out = append(out, l.Behind)
		}
		time.Sleep(20 * time.Millisecond) // polling, with a deadline
	}
	return out
}

func lagOf(s *runtime.Syncer[*corev1.ConfigMap]) runtime.Lag { l, _ := s.Lag(); return l }

// The lag a probe measures follows a delay a proxy puts on the watch,
// with writes flowing: within 0.5 s of it at 0.3, 1 and 5 s. A read that
// asks for data no older than 2 s fails with a *LagError under the 5 s
// delay, every time, and answers under the 0.3 s one, every time.
func TestLagFollowsAWatchDelay(t *testing.T) {
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	for _, delay := range []time.Duration{300 * time.Millisecond, time.Second, 5 * time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			ns := srv.Namespace(t)
			createConfigMaps(t, cs, ns, 0, 50, nil)
			w := testbed.StartWriter(t, srv.Config(), ns, testbed.WriterOptions{Rate: 200, Population: 50, MaxDuration: 2 * time.Minute})
			defer w.Stop()
			proxy := testbed.StartProxy(t, srv)
			proxy.DelayWatches(delay)
			s, _ := startSyncer(t, proxy.Config(), runtime.WithNamespace(ns), runtime.WithLagProbe(500*time.Millisecond))
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := s.WaitForSync(ctx); err != nil {
				t.Fatal(err)
			}
			lags := caughtLags(t, s, 3, 30*time.Second+4*delay)
			for _, l := range lags[1:] { // the first may have begun while the sync's own stream caught up
				if d := l - delay; d < -500*time.Millisecond || d > 500*time.Millisecond {
					t.Errorf("lag measured %s under a delay of %s (all: %v)", l.Round(time.Millisecond), delay, lags)
				}
			}
			for i := range 3 {
				began := time.Now()
				err := s.WaitNoOlderThan(ctx, 2*time.Second)
				took := time.Since(began)
				var lagErr *runtime.LagError
				switch {
				case delay >= 5*time.Second && !errors.As(err, &lagErr):
					t.Errorf("read %d no older than 2s under a %s delay: %v after %s, want a *runtime.LagError", i, delay, err, took)
				case delay < time.Second && (err != nil || took > 2*time.Second):
					t.Errorf("read %d no older than 2s under a %s delay: %v after %s, want an answer", i, delay, err, took)
				}
			}
		})
	}
}

// A syncer of a namespace where nothing changes, while writes flow in
// another: the server's resourceVersion moves, the store's does not, and
// nothing is missing. Its lag is about 0, and a consistent read (no older
// than 0) answers in about a second (the probe's watch), not at the next
// bookmark (about a minute). On the default version and on v1.36.3,
// whose watch cache sends the pre-timeout bookmark the probe relies on.
func TestLagOfAQuietNamespace(t *testing.T) {
	t.Run("default", func(t *testing.T) { quietNamespaceLag(t, testbed.Shared(t)) })
	t.Run("v1.36.3", func(t *testing.T) { quietNamespaceLag(t, testbed.Start(t, testbed.WithKubeVersion("v1.36.3"))) })
}

func quietNamespaceLag(t *testing.T, srv *testbed.Server) {
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	quiet, busy := srv.Namespace(t), srv.Namespace(t)
	createConfigMaps(t, cs, quiet, 0, 10, nil)
	s, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(quiet), runtime.WithLagProbe(500*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	w := testbed.StartWriter(t, srv.Config(), busy, testbed.WriterOptions{Rate: 200, Population: 50, MaxDuration: 2 * time.Minute})
	defer w.Stop()
	for _, l := range caughtLags(t, s, 4, 30*time.Second) {
		if l > 500*time.Millisecond {
			t.Errorf("a quiet namespace's lag measured %s, want about 0", l)
		}
	}
	if l := lagOf(s); l.StoreResourceVersion == l.ServerResourceVersion {
		t.Errorf("the store was at the server's resourceVersion %s: the writes in another namespace did not move it, and the test proves nothing", l.ServerResourceVersion)
	}
	for i := range 3 {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		began := time.Now()
		err := s.WaitNoOlderThan(rctx, 0)
		cancel()
		if took := time.Since(began); err != nil || took > 2500*time.Millisecond {
			t.Errorf("consistent read %d of a quiet namespace: %v after %s, want an answer within 2.5s", i, err, took)
		}
	}
}

// A proxy stops forwarding the syncer's watch, silently, while writes
// flow: a probe sees the store behind and its resourceVersion put, and
// the watch is restarted within two probe intervals; afterwards the store
// equals a quorum LIST.
func TestStalledWatchIsRestarted(t *testing.T) {
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 50, nil)
	proxy := testbed.StartProxy(t, srv)
	var m lagCounted
	const every = 500 * time.Millisecond
	s, _ := startSyncer(t, proxy.Config(), runtime.WithNamespace(ns), runtime.WithLagProbe(every), runtime.WithMetrics(&m))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	w := testbed.StartWriter(t, srv.Config(), ns, testbed.WriterOptions{Rate: 200, Population: 50, MaxDuration: 2 * time.Minute})
	caughtLags(t, s, 2, 20*time.Second)
	if n := proxy.StallWatches(); n == 0 {
		t.Fatal("no watch to stall")
	}
	stalledAt := time.Now()
	eventually(t, 20*time.Second, "the stalled watch to be restarted", func() bool { return m.stalls.Load() > 0 })
	// Two intervals, and the probe's own requests (a LIST, and a watch
	// that ends at its first event past the server's resourceVersion).
	if took := time.Since(stalledAt); took > 2*every+time.Second {
		t.Errorf("restarted %s after the stall, want within two probe intervals (%s) and a probe's requests", took.Round(time.Millisecond), 2*every)
	}
	w.Stop()
	eventually(t, 30*time.Second, "the store to equal a quorum LIST", storeMatchesServer(t, cs, s, ns))
}

// A sharded syncer that keeps to its shard itself (the server ignores the
// shard selector: ShardFiltered) skips the other shards' events: they
// move its resourceVersion as a bookmark would, so that a probe that saw
// one does not take the store for behind, nor its watch for stalled. A
// few writes a second: the next event of its own shard is seconds away.
func TestLagOfAShardKeptByTheSyncer(t *testing.T) {
	srv := testbed.Shared(t)
	cs := kubernetes.NewForConfigOrDie(srv.Config())
	ns := srv.Namespace(t)
	createConfigMaps(t, cs, ns, 0, 50, nil)
	var m lagCounted
	s, _ := startSyncer(t, srv.Config(), runtime.WithNamespace(ns), runtime.WithShard(0, 4), runtime.WithLagProbe(500*time.Millisecond), runtime.WithMetrics(&m))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if mode := s.ShardMode(); mode != runtime.ShardFiltered {
		t.Skipf("shard mode %s: the server keeps to the shard, the case is not this one", mode)
	}
	w := testbed.StartWriter(t, srv.Config(), ns, testbed.WriterOptions{Rate: 5, Population: 50, MaxDuration: 2 * time.Minute})
	defer w.Stop()
	for _, l := range caughtLags(t, s, 4, 30*time.Second) {
		if l > 500*time.Millisecond {
			t.Errorf("lag measured %s with no delay", l)
		}
	}
	if n := m.stalls.Load(); n > 0 {
		t.Errorf("%d watches taken for stalled, with nothing held back", n)
	}
}
