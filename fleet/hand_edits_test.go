package fleet_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/syncer-gen/syncer-gen/fleet"
)

// Hand edits are made on the real server, as an operator makes them.

// leasesAgree reports whether the server has a Lease for each shard,
// naming the live replica that holds it, and a membership for each live
// replica.
func (c *cluster) leasesAgree() (bool, string) {
	list, err := c.srv.Client().CoordinationV1().Leases(c.opts.Namespace).List(context.Background(),
		metav1.ListOptions{LabelSelector: fleet.LabelName + "=" + c.opts.Name})
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

// deleteFleetLeases deletes every Lease of the fleet, as `kubectl delete
// leases -l fleet.syncer-gen.io/name=<name>` does, and returns how many it
// deleted.
func (c *cluster) deleteFleetLeases() int {
	c.t.Helper()
	ctx := context.Background()
	leases := c.srv.Client().CoordinationV1().Leases(c.opts.Namespace)
	list, err := leases.List(ctx, metav1.ListOptions{LabelSelector: fleet.LabelName + "=" + c.opts.Name})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, l := range list.Items {
		if err := leases.Delete(ctx, l.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			c.t.Fatal(err)
		}
	}
	return len(list.Items)
}

// Every Lease of the fleet deleted by hand (kubectl delete leases -l
// fleet.syncer-gen.io/name=...), once on a settled fleet and once while a
// replica joins and shards move: no shard ever has two holders (the work
// takes a while to wind down, so that a replica starting a shard its
// holder still runs would show), no replica counts the others gone, and
// the fleet recovers by itself: every shard held once and its Lease back,
// naming its holder.
func TestDeletedLeasesNeverGiveTwoHolders(t *testing.T) {
	c := serverCluster(t, "deleted", fleet.Options{})
	c.rec.drain = 200 * time.Millisecond
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	recovered := func(what string) {
		c.waitFor(what, settle, func() (bool, string) {
			if ok, state := c.balanced(); !ok {
				return false, state
			}
			return c.leasesAgree()
		})
		if o := overlaps(c.rec.snapshot()); len(o) > 0 {
			t.Fatalf("%s: %v", what, o)
		}
	}

	for _, r := range c.replicas() {
		r.metrics.watchMembers()
	}
	n := c.deleteFleetLeases()
	t.Logf("deleted %d Leases of a settled fleet: %s", n, c.distribution())
	recovered("recovered from the deletion")
	for _, r := range c.replicas() {
		if m := r.metrics.fewestMembers(); m != 3 {
			t.Errorf("%s counted %d members after the deletion, want 3 all along", r.id, m)
		}
	}

	c.start("replica-d")
	c.waitFor("replica-d holding a shard", settle, func() (bool, string) {
		return len(c.replica("replica-d").f.Held()) > 0, c.distribution()
	})
	n = c.deleteFleetLeases()
	t.Logf("deleted %d Leases while replica-d joins: %s", n, c.distribution())
	recovered("recovered from the deletion during a join")
	c.rec.checkOneHolder(t)
}

// A holder cut off from the server (its writes refused) while its shard's
// Lease is edited by hand to a lease of one second: the others still wait
// a whole LeaseDuration from the edit, so the shard is not taken while its
// holder, which stops only RenewDeadline after its last renewal, still
// works on it.
func TestLeaseShortenedByHandIsNotTakenEarly(t *testing.T) {
	c := serverCluster(t, "shortened", fleet.Options{Shards: 2,
		LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: retryPeriod})
	c.rec.drain = 100 * time.Millisecond
	for _, id := range []string{"replica-a", "replica-b"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	b := c.replica("replica-b")
	shard := c.waitRenewed(b)[0]
	b.gate.fail()
	leases := c.srv.Client().CoordinationV1().Leases(c.opts.Namespace)
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
	c.waitFor("replica-a holding replica-b's shard", settle, func() (bool, string) {
		return len(c.replica("replica-a").f.Held()) == 2, c.distribution()
	})
	at, _ := c.rec.firstStartAfter(shard, "replica-b", edited)
	t.Logf("replica-b cut off and its shard %d's lease edited to 1s; replica-a took it %s later", shard, at.Sub(edited).Round(time.Millisecond))
	if at.Sub(edited) < c.opts.LeaseDuration {
		t.Errorf("replica-a took shard %d %s after its lease was shortened by hand, before LeaseDuration %s", shard, at.Sub(edited), c.opts.LeaseDuration)
	}
	if o := overlaps(c.rec.snapshot()); len(o) > 0 {
		t.Error(o)
	}
	b.gate.open()
	c.waitBalanced(settle)
}
