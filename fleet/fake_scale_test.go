package fleet_test

import (
	"testing"
	"time"

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
}
