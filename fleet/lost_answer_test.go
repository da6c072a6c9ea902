package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// lostAnswerCluster runs replicas of fleet name over shards on one
// in-memory store, each through faults of its own, with a lease long
// enough that a shard taken by expiry cannot pass for one released or
// settled at once.
func lostAnswerCluster(t *testing.T, name string, shards int) (*cluster, *faultyStore) {
	store := newFaultyStore()
	c := newCluster(t, fleet.Options{Name: name, Namespace: "default", Shards: shards,
		LeaseDuration: 4 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 100 * time.Millisecond},
		store.newFleet)
	c.rec.drain = 50 * time.Millisecond
	return c, store
}

// isShard tells a shard's Lease from a membership.
func isShard(l *coordinationv1.Lease) bool { return l.Labels[fleet.LabelRole] == "shard" }

// A replica stops while the write that takes a shard is in flight: the
// write lands, the answer is lost to the cancellation. When Run has
// returned, the Lease does not name the stopped replica, and the replica
// it was joining takes the shard back at once, not once it expires.
func TestLostAnswerOfACancelledAcquireIsReleased(t *testing.T) {
	c, store := lostAnswerCluster(t, "cancelled", 4)
	c.start("a")
	c.waitBalanced(10 * time.Second)

	// b joins; a gives two shards up; b's first take lands, and its answer
	// is held back until b's Run is cancelled.
	inFlight := make(chan string, 1)
	var once atomic.Bool
	store.faults("b").setRule(func(verb string, l *coordinationv1.Lease) writeFault {
		if isShard(l) && once.CompareAndSwap(false, true) {
			inFlight <- l.Name
			return loseAnswerOnCancel
		}
		return pass
	})
	c.start("b")
	var name string
	select {
	case name = <-inFlight:
	case <-time.After(10 * time.Second):
		t.Fatalf("b took no shard: %s", c.distribution())
	}
	stopped := time.Now()
	c.stop("b")
	l, err := store.leases.Leases("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := l.Spec.HolderIdentity; h != nil && *h == "b" {
		t.Errorf("%s names the stopped replica b after its Run returned", name)
	}
	took := c.waitBalanced(10 * time.Second)
	t.Logf("b stopped with its take of %s in flight; a holds every shard again %s after the stop", name,
		(time.Since(stopped)).Round(time.Millisecond))
	if limit := 2 * time.Second; took > limit {
		t.Errorf("a took the shards back %s after b's Run returned, want within %s (its lease is %s)", took, limit, c.opts.LeaseDuration)
	}
	if n := len(c.replica("a").metrics.takeovers(fleet.FromExpiry)); n > 0 {
		t.Errorf("a took %d shards by expiry, want none: b's Lease was released", n)
	}
}

// A take whose answer is lost (the write lands, the connection resets),
// and whose follow-up read is lost too: the take sent again conflicts (the
// first landed), and the read that would tell gets no answer. The replica
// stops before its next round would show it the Lease: when Run has
// returned, the Lease does not name it, and the replica it was joining
// takes the shard back at once, not once it expires.
func TestLostAnswerAndLostReadOfATakeIsReleased(t *testing.T) {
	c, store := lostAnswerCluster(t, "lostread", 4)
	c.start("a")
	c.waitBalanced(10 * time.Second)

	var taken atomic.Value // the Lease whose take lost its answer
	b := store.faults("b")
	b.setRule(func(_ string, l *coordinationv1.Lease) writeFault {
		if isShard(l) && taken.CompareAndSwap(nil, l.Name) {
			return loseAnswer
		}
		return pass
	})
	// The first read of that Lease after the lost take is the one that
	// settles it: its answer is lost once b's Run has been cancelled.
	reading, stopping := make(chan string, 1), make(chan struct{})
	var once atomic.Bool
	b.setReadRule(func(name string) error {
		if name == taken.Load() && once.CompareAndSwap(false, true) {
			reading <- name
			<-stopping
			return errors.New("faultyLeases: connection reset by peer before the read's answer")
		}
		return nil
	})
	c.start("b")
	var name string
	select {
	case name = <-reading:
	case <-time.After(10 * time.Second):
		t.Fatalf("b took no shard: %s", c.distribution())
	}
	c.replica("b").cancel()
	close(stopping)
	stopped := c.stop("b")
	l, err := store.leases.Leases("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := l.Spec.HolderIdentity; h != nil && *h == "b" {
		t.Errorf("%s names the stopped replica b after its Run returned", name)
	}
	took := c.waitBalanced(10 * time.Second)
	t.Logf("b stopped with its take of %s unsure; a holds every shard again %s after Run returned", name, took.Round(time.Millisecond))
	if limit := 2 * time.Second; time.Since(stopped) > limit {
		t.Errorf("a took the shards back %s after b's Run returned, want within %s (its lease is %s)",
			time.Since(stopped).Round(time.Millisecond), limit, c.opts.LeaseDuration)
	}
	if n := len(c.replica("a").metrics.takeovers(fleet.FromExpiry)); n > 0 {
		t.Errorf("a took %d shards by expiry, want none: b's Lease was released", n)
	}
}

// A take whose answer is lost (the write lands, the connection resets)
// while the replica runs: it is made sure of at once, so the shard is not
// left named after a replica that does not work on it until the Lease
// expires, and its holder is not taken for dead.
//
// a may take nothing at first (its writes to shards are refused), so that
// b, with a quota of one shard of three, fills it with another shard after
// the lost answer; then a may write again and must find the fleet
// balanced soon, without a takeover by expiry.
func TestLostAnswerWhileRunningLeavesNoShardUnowned(t *testing.T) {
	c, store := lostAnswerCluster(t, "lost", 3)
	var refusing atomic.Bool
	refusing.Store(true)
	store.faults("a").setRule(func(_ string, l *coordinationv1.Lease) writeFault {
		if isShard(l) && refusing.Load() {
			return refuse
		}
		return pass
	})
	var lost atomic.Value // the Lease whose answer was lost
	store.faults("b").setRule(func(_ string, l *coordinationv1.Lease) writeFault {
		if isShard(l) && lost.CompareAndSwap(nil, l.Name) {
			return loseAnswer
		}
		return pass
	})
	a := c.start("a")
	c.waitFor("a seeing itself", 10*time.Second, func() (bool, string) {
		return a.metrics.count(fleet.Acquired) == 0 && membersOf(a) == 1, fmt.Sprint(membersOf(a))
	})
	b := c.start("b")
	c.waitFor("b holding its quota", 20*time.Second, func() (bool, string) {
		return lost.Load() != nil && len(b.f.Held()) >= 1, c.distribution()
	})
	refusing.Store(false)
	took := c.waitBalanced(20 * time.Second)
	t.Logf("b's take of %s lost its answer; balanced %s after a could write again", lost.Load(), took.Round(time.Millisecond))
	if limit := time.Second; took > limit {
		t.Errorf("balanced %s after a could write again, want within %s (the lease is %s)", took, limit, c.opts.LeaseDuration)
	}
	for _, r := range c.replicas() {
		if n := len(r.metrics.takeovers(fleet.FromExpiry)); n > 0 {
			t.Errorf("%s took %d shards by expiry, want none: no replica died", r.id, n)
		}
		if n := r.metrics.count(fleet.Lost); n > 0 {
			t.Errorf("%s lost %d shards, want none", r.id, n)
		}
	}
}

func membersOf(r *replica) int {
	r.metrics.mu.Lock()
	defer r.metrics.mu.Unlock()
	return r.metrics.members
}
