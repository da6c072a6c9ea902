package fleet_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// fakeFleets makes replicas that share one in-memory Lease store.
func fakeFleets() func(fleet.Options, *gate) (*fleet.Fleet, error) {
	leases := fakeLeases()
	return func(o fleet.Options, _ *gate) (*fleet.Fleet, error) { return fleet.NewForClient(leases, o) }
}

// The brief's walk, N=8 with K=3 -> 4 (join) -> 3 (one dies) -> 2 (one
// more dies) -> 1 (one stops), on the in-memory store: balanced at each
// step, never two holders.
func TestScaleOutAndInWithoutAServer(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	c := newCluster(t, fleet.Options{Name: "fake", Namespace: "default", Shards: 8,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond},
		fakeFleets())
	for _, id := range []string{"a", "b", "c"} {
		c.start(id)
	}
	c.waitBalanced(10 * time.Second)
	c.start("d")
	c.waitBalanced(10 * time.Second)
	c.kill("b")
	c.waitBalanced(10 * time.Second)
	c.kill("d")
	c.waitBalanced(10 * time.Second)
	c.stop("a")
	c.waitBalanced(10 * time.Second)
	c.stop("c")
	// Run leaves nothing running behind it.
	goleak.VerifyNone(t, ignore)
}

// Work that returns before its context ends is started again, after a
// backoff, while the replica holds the shard; Run refuses to run twice.
func TestWorkThatReturnsEarlyIsStartedAgain(t *testing.T) {
	f, err := fleet.NewForClient(fakeLeases(), fleet.Options{Name: "early", Namespace: "default", Identity: "a", Shards: 1,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	starts := make(chan int, 10)
	var runs atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- f.Run(ctx, func(ctx context.Context, shard int) error {
			starts <- shard
			if runs.Add(1) == 1 {
				return errors.New("first run fails")
			}
			<-ctx.Done()
			if c := context.Cause(ctx); c != fleet.ErrStopping {
				t.Errorf("work's context ended with cause %v, want ErrStopping", c)
			}
			return nil
		})
	}()
	for i := range 2 {
		select {
		case <-starts:
		case <-time.After(10 * time.Second):
			t.Fatalf("work started %d times, want 2", i)
		}
	}
	if err := f.Run(ctx, func(context.Context, int) error { return nil }); err == nil {
		t.Error("a second Run did not fail")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// A replica giving shards up (over quota, or stopping) keeps renewing
// their Leases until their work has returned, however long that takes:
// here three times LeaseDuration. The newcomer gets them only then.
func TestSlowWorkKeepsItsShardsUntilItReturns(t *testing.T) {
	c := newCluster(t, fleet.Options{Name: "slow", Namespace: "default", Shards: 4,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond},
		fakeFleets())
	c.rec.drain = 3 * time.Second
	c.start("a")
	c.waitBalanced(10 * time.Second)
	joined := time.Now()
	c.start("b")
	took := c.waitBalanced(20 * time.Second)
	if took < c.rec.drain {
		t.Errorf("b got its shards %s after it joined, before a's work could return (%s)", took, c.rec.drain)
	}
	for _, iv := range c.rec.snapshot() {
		if iv.id == "b" && iv.start.Before(joined.Add(c.rec.drain)) {
			t.Errorf("b started shard %d %s after it joined, while a's work on it was still returning", iv.shard, iv.start.Sub(joined))
		}
	}
}
