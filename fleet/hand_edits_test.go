package fleet_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// faultyStore is one in-memory Lease store that replicas reach each
// through a faultyLeases of its own.
type faultyStore struct {
	leases coordinationv1client.LeasesGetter
	mu     sync.Mutex
	byID   map[string]*faultyLeases
}

func newFaultyStore() *faultyStore {
	return &faultyStore{leases: fakeLeases(), byID: map[string]*faultyLeases{}}
}

// faults returns replica id's client, made on first use, so that a test
// can set its rule before the replica starts.
func (s *faultyStore) faults(id string) *faultyLeases {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.byID[id]
	if f == nil {
		f = &faultyLeases{LeasesGetter: s.leases}
		s.byID[id] = f
	}
	return f
}

func (s *faultyStore) newFleet(o fleet.Options, _ *gate) (*fleet.Fleet, error) {
	return fleet.NewForClient(s.faults(o.Identity), o)
}

// leasesAgree reports whether the store has a Lease for each shard, naming
// the live replica that holds it, and a membership for each live replica.
func (c *cluster) leasesAgree(leases coordinationv1client.LeasesGetter) (bool, string) {
	list, err := leases.Leases(c.opts.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: fleet.LabelName + "=" + c.opts.Name})
	if err != nil {
		return false, err.Error()
	}
	owner := map[string]string{}
	for _, r := range c.replicas() {
		for _, s := range r.f.Held() {
			owner[fmt.Sprintf("%s-shard-%d", c.opts.Name, s)] = r.id
		}
	}
	shards, members := 0, 0
	for _, l := range list.Items {
		holder := ""
		if l.Spec.HolderIdentity != nil {
			holder = *l.Spec.HolderIdentity
		}
		switch l.Labels[fleet.LabelRole] {
		case "shard":
			shards++
			if holder != owner[l.Name] {
				return false, fmt.Sprintf("Lease %s names %q, held by %q", l.Name, holder, owner[l.Name])
			}
		case "member":
			if c.replica(holder) != nil {
				members++
			}
		}
	}
	if shards != c.opts.Shards || members != len(c.replicas()) {
		return false, fmt.Sprintf("%d shard Leases and %d memberships of live replicas, want %d and %d", shards, members, c.opts.Shards, len(c.replicas()))
	}
	return true, ""
}

// Every Lease of the fleet deleted by hand (kubectl delete leases -l
// fleet.syncer-gen.io/name=...), once on a settled fleet and once while a
// replica joins and shards move: no shard ever has two holders (the work
// takes a while to wind down, so that a replica starting a shard its
// holder still runs would show), no replica counts the others gone, and
// the fleet recovers by itself: every shard held once and its Lease back,
// naming its holder.
func TestDeletedLeasesNeverGiveTwoHolders(t *testing.T) {
	store := newFaultyStore()
	c := newCluster(t, fleet.Options{Name: "deleted", Namespace: "default", Shards: 8,
		LeaseDuration: time.Second, RenewDeadline: 500 * time.Millisecond, RetryPeriod: 100 * time.Millisecond},
		store.newFleet)
	c.rec.drain = 200 * time.Millisecond
	for _, id := range []string{"a", "b", "c"} {
		c.start(id)
	}
	c.waitBalanced(10 * time.Second)
	recovered := func(what string) {
		c.waitFor(what, 10*time.Second, func() (bool, string) {
			if ok, state := c.balanced(); !ok {
				return false, state
			}
			return c.leasesAgree(store.leases)
		})
		if o := overlaps(c.rec.snapshot()); len(o) > 0 {
			t.Fatalf("%s: %v", what, o)
		}
	}

	for _, r := range c.replicas() {
		r.metrics.watchMembers()
	}
	n := deleteFleetLeases(t, store.leases, "default", "deleted")
	t.Logf("deleted %d Leases of a settled fleet: %s", n, c.distribution())
	recovered("recovered from the deletion")
	for _, r := range c.replicas() {
		if m := r.metrics.fewestMembers(); m != 3 {
			t.Errorf("%s counted %d members after the deletion, want 3 all along", r.id, m)
		}
	}

	c.start("d")
	c.waitFor("d holding a shard", 10*time.Second, func() (bool, string) {
		return len(c.replica("d").f.Held()) > 0, c.distribution()
	})
	n = deleteFleetLeases(t, store.leases, "default", "deleted")
	t.Logf("deleted %d Leases while d joins: %s", n, c.distribution())
	recovered("recovered from the deletion during a join")
	c.rec.checkOneHolder(t)
}

// A holder cut off from the server (its writes refused) while its shard's
// Lease is edited by hand to a lease of one second: the others still wait
// a whole LeaseDuration from the edit, so the shard is not taken while its
// holder, which stops only RenewDeadline after its last renewal, still
// works on it.
func TestLeaseShortenedByHandIsNotTakenEarly(t *testing.T) {
	store := newFaultyStore()
	c := newCluster(t, fleet.Options{Name: "shortened", Namespace: "default", Shards: 2,
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 100 * time.Millisecond},
		store.newFleet)
	c.rec.drain = 100 * time.Millisecond
	for _, id := range []string{"a", "b"} {
		c.start(id)
	}
	c.waitBalanced(20 * time.Second)
	b := c.replica("b")
	shard := b.f.Held()[0]
	var cut atomic.Bool
	store.faults("b").setRule(func(string, *coordinationv1.Lease) writeFault {
		if cut.Load() {
			return refuse
		}
		return pass
	})
	cut.Store(true)
	leases := store.leases.Leases("default")
	l, err := leases.Get(context.Background(), fmt.Sprintf("shortened-shard-%d", shard), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	one := int32(1)
	l.Spec.LeaseDurationSeconds = &one
	if _, err := leases.Update(context.Background(), l, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	edited := time.Now()
	c.waitFor("a holding b's shard", 20*time.Second, func() (bool, string) {
		return len(c.replica("a").f.Held()) == 2, c.distribution()
	})
	at, _ := c.rec.firstStartAfter(shard, "b", edited)
	t.Logf("b cut off and its shard %d's lease edited to 1s; a took it %s later", shard, at.Sub(edited).Round(time.Millisecond))
	if at.Sub(edited) < c.opts.LeaseDuration {
		t.Errorf("a took shard %d %s after its lease was shortened by hand, before LeaseDuration %s", shard, at.Sub(edited), c.opts.LeaseDuration)
	}
	if o := overlaps(c.rec.snapshot()); len(o) > 0 {
		t.Error(o)
	}
	cut.Store(false)
	c.waitBalanced(20 * time.Second)
}
