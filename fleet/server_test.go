package fleet_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/fleet"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// Short lease timings keep the tests fast: a dead replica's shards are
// taken over within about LeaseDuration+RetryPeriod.
const (
	leaseDuration = 2 * time.Second
	renewDeadline = 1500 * time.Millisecond
	retryPeriod   = 250 * time.Millisecond
	// slack is what a loaded machine may add to a takeover: a round's
	// jitter (a quarter of RetryPeriod) and a few requests.
	slack = time.Second
	// settle bounds every wait for balance.
	settle = 20 * time.Second
)

// serverCluster runs replicas of fleet name against the shared test bed.
// Each replica's requests pass through its own gate.
func serverCluster(t *testing.T, name string, opts fleet.Options) *cluster {
	srv := testbed.Shared(t)
	opts.Name, opts.Namespace = name, srv.Namespace(t)
	if opts.Shards == 0 {
		opts.Shards = 8
	}
	if opts.LeaseDuration == 0 {
		opts.LeaseDuration, opts.RenewDeadline, opts.RetryPeriod = leaseDuration, renewDeadline, retryPeriod
	}
	c := newCluster(t, opts, func(o fleet.Options, g *gate) (*fleet.Fleet, error) {
		cfg := srv.Config()
		cfg.Wrap(g.wrap)
		return fleet.New(cfg, o)
	})
	c.srv = srv
	return c
}

// checkLeases fails t unless the server's shard Leases name the replicas
// that hold the shards, and each live replica has its membership.
func (c *cluster) checkLeases() {
	c.t.Helper()
	if ok, why := c.leasesAgree(); !ok {
		c.t.Error(why)
	}
}

// checkTakeover checks, from the victim's transport and the log of work,
// how shard passed from victim (killed or cut off at from) to another
// replica: no one took it before LeaseDuration had passed since the last
// renewal of the victim that reached the server was sent; a victim that
// lives on (cut off) stopped its work within RenewDeadline of that
// renewal, before its lease could expire. It returns how long after from
// the shard was taken.
func (c *cluster) checkTakeover(victim *replica, shard int, from time.Time, killed bool) time.Duration {
	c.t.Helper()
	lastSent := victim.gate.lastWrite(fmt.Sprintf("%s-shard-%d", c.opts.Name, shard))
	end := c.rec.lastEnd(shard, victim.id)
	taken, by := c.rec.firstStartAfter(shard, victim.id, from)
	if lastSent.IsZero() || end.IsZero() || taken.IsZero() {
		c.t.Errorf("shard %d: last renewal sent at %v, work returned at %v, taken at %v", shard, lastSent, end, taken)
		return 0
	}
	c.t.Logf("%s: shard %d: last renewal sent %s before, work returned %s after, %s took it %s after (%s after the last renewal)",
		victim.id, shard, from.Sub(lastSent).Round(time.Millisecond), end.Sub(from).Round(time.Millisecond),
		by, taken.Sub(from).Round(time.Millisecond), taken.Sub(lastSent).Round(time.Millisecond))
	if taken.Sub(lastSent) < c.opts.LeaseDuration {
		c.t.Errorf("shard %d: %s took it %s after %s's last renewal, before its lease (%s) could expire",
			shard, by, taken.Sub(lastSent), victim.id, c.opts.LeaseDuration)
	}
	if !killed {
		if end.Sub(lastSent) >= c.opts.LeaseDuration {
			c.t.Errorf("shard %d: %s's work returned %s after its last renewal, not before its lease (%s) could expire",
				shard, victim.id, end.Sub(lastSent), c.opts.LeaseDuration)
		}
		if limit := c.opts.RenewDeadline + c.rec.drain + 250*time.Millisecond; end.Sub(lastSent) > limit {
			c.t.Errorf("shard %d: %s's work returned %s after its last renewal, want within RenewDeadline+drain (+250ms) %s",
				shard, victim.id, end.Sub(lastSent), limit)
		}
	}
	return taken.Sub(from)
}

// waitRenewed waits until r has renewed each shard it holds at least once
// (a shard's first write is its creation, which its gate does not time).
func (c *cluster) waitRenewed(r *replica) []int {
	c.t.Helper()
	var held []int
	c.waitFor(r.id+" renewing its shards", settle, func() (bool, string) {
		held = r.f.Held()
		for _, s := range held {
			if r.gate.lastWrite(fmt.Sprintf("%s-shard-%d", c.opts.Name, s)).IsZero() {
				return false, fmt.Sprintf("shard %d not renewed yet", s)
			}
		}
		return true, ""
	})
	return held
}

// (1) Three replicas over eight shards converge to 3/3/2, every shard held
// once, and the server's Leases agree.
func TestThreeReplicasShareEightShards(t *testing.T) {
	c := serverCluster(t, "three", fleet.Options{})
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	var counts []int
	for _, r := range c.replicas() {
		counts = append(counts, len(r.f.Held()))
	}
	slices.Sort(counts)
	if !slices.Equal(counts, []int{2, 3, 3}) {
		t.Errorf("shards per replica %v, want 2 3 3", counts)
	}
	c.checkLeases()
}

// (3) A replica joins: the others give up what is over their new quota
// (work stopped first), the newcomer takes it, and the fleet is balanced
// again, 2/2/2/2.
func TestJoinRebalances(t *testing.T) {
	c := serverCluster(t, "join", fleet.Options{})
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	joined := time.Now()
	d := c.start("replica-d")
	took := c.waitBalanced(settle)
	moved := 0
	for _, iv := range c.rec.snapshot() {
		if iv.start.After(joined) {
			moved++
		}
	}
	t.Logf("replica-d joined: balanced %s later, %d shards moved", took.Round(time.Millisecond), moved)
	if n := len(d.f.Held()); n != 2 {
		t.Errorf("replica-d holds %d shards, want 2", n)
	}
	c.checkLeases()
}

// (2) A replica killed (no renewal, no release: see Fleet.Kill) has its
// shards taken over within LeaseDuration+RetryPeriod (+slack), and the
// fleet rebalances: 4 -> 3 -> 2 replicas.
func TestKilledReplicasShardsAreTakenOver(t *testing.T) {
	c := serverCluster(t, "kill", fleet.Options{})
	for _, id := range []string{"replica-a", "replica-b", "replica-c", "replica-d"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	limit := leaseDuration + retryPeriod + slack
	for _, victim := range []string{"replica-b", "replica-d"} {
		r := c.replica(victim)
		shards := c.waitRenewed(r)
		killed := c.kill(victim)
		c.waitBalanced(settle)
		for _, s := range shards {
			if took := c.checkTakeover(r, s, killed, true); took > limit {
				t.Errorf("shard %d taken over %s after %s was killed, want within %s", s, took, victim, limit)
			}
		}
	}
	for _, r := range c.replicas() {
		if n := r.metrics.count(fleet.Acquired); n == 0 {
			t.Errorf("%s: no acquisition counted", r.id)
		}
		for _, d := range r.metrics.takeovers(fleet.FromExpiry) {
			t.Logf("%s: takeover after expiry, from the last renewal it observed: %s", r.id, d.Round(time.Millisecond))
			if d < leaseDuration || d > limit {
				t.Errorf("%s: takeover metric %s, want between %s and %s", r.id, d, leaseDuration, limit)
			}
		}
	}
	c.checkLeases()
}

// (5) A replica stopped gracefully stops its work, releases its Leases and
// its membership: its shards are taken at once, well before their leases
// would have expired.
func TestGracefulStopHandsOverAtOnce(t *testing.T) {
	// A lease long enough that a takeover by expiry cannot pass for one by
	// release.
	c := serverCluster(t, "graceful", fleet.Options{LeaseDuration: 10 * time.Second, RenewDeadline: 8 * time.Second, RetryPeriod: retryPeriod})
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		c.start(id)
	}
	c.waitBalanced(settle)
	shards := c.replica("replica-a").f.Held()
	stopped := time.Now()
	returned := c.stop("replica-a")
	took := c.waitBalanced(settle)
	t.Logf("replica-a stopped: Run returned in %s, fleet balanced %s after the stop", returned.Sub(stopped).Round(time.Millisecond),
		(returned.Sub(stopped) + took).Round(time.Millisecond))
	limit := 2*retryPeriod + slack
	for _, s := range shards {
		end := c.rec.lastEnd(s, "replica-a")
		at, by := c.rec.firstStartAfter(s, "replica-a", end)
		t.Logf("shard %d: replica-a's work returned, %s started it %s later", s, by, at.Sub(end).Round(time.Millisecond))
		if at.Sub(end) > limit {
			t.Errorf("shard %d taken %s after replica-a's work returned, want within %s", s, at.Sub(end), limit)
		}
	}
	c.checkLeases()
}

// (4) At most one holder, proven from the log of every run of every
// shard's work (checked when the test ends): replicas join, are killed,
// stop, and two are cut off from the server for longer than a lease, one
// with requests that hang, one with requests that fail. A cut-off replica
// stops its work within RenewDeadline of its last renewal, before its
// leases can expire, and the others take its shards.
func TestAtMostOneHolderUnderChurn(t *testing.T) {
	c := serverCluster(t, "churn", fleet.Options{})
	c.rec.drain = 50 * time.Millisecond
	for _, id := range []string{"replica-a", "replica-b", "replica-c"} {
		c.start(id)
	}
	c.waitBalanced(settle)

	// A join and a kill while the fleet is still moving shards.
	c.start("replica-d")
	c.waitFor("replica-d holding a shard", settle, func() (bool, string) {
		return len(c.replica("replica-d").f.Held()) > 0, c.distribution()
	})
	c.kill("replica-a")
	c.start("replica-e")
	c.waitBalanced(settle)

	cutOff := func(id, how string, cut func(*gate)) {
		r := c.replica(id)
		shards := c.waitRenewed(r)
		at := time.Now()
		cut(r.gate)
		c.waitFor(id+"'s shards taken by the others", settle, func() (bool, string) {
			running := c.rec.running()
			for s := range c.opts.Shards {
				if ids := running[s]; len(ids) != 1 || ids[0] == id {
					return false, fmt.Sprintf("shard %d runs on %v; %s", s, ids, c.distribution())
				}
			}
			return true, ""
		})
		t.Logf("%s's requests %s from %s", id, how, at.Format("15:04:05.000"))
		for _, s := range shards {
			c.checkTakeover(r, s, at, false)
		}
		if n := r.metrics.count(fleet.Lost); n < len(shards) {
			t.Errorf("%s: %d shards lost counted, want %d", id, n, len(shards))
		}
		r.gate.open()
		c.waitBalanced(settle)
	}
	cutOff("replica-b", "hang", (*gate).hang)
	cutOff("replica-c", "fail", (*gate).fail)

	// More at once: a graceful stop, a kill, two joins.
	c.stop("replica-d")
	c.kill("replica-e")
	c.start("replica-f")
	c.start("replica-g")
	c.waitBalanced(settle)
}
