package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/syncer-gen/syncer-gen/fleet"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// interval is one run of a shard's work: [start, end), end being when the
// work returned (zero while it runs).
type interval struct {
	shard      int
	id         string
	start, end time.Time
}

// recorder is the shared log of every replica's work, from which the tests
// prove that a shard never has two holders.
type recorder struct {
	mu        sync.Mutex
	intervals []interval
	// drain is how long work takes to return once cancelled, as a worker
	// finishing the item in hand does.
	drain time.Duration
}

func (r *recorder) work(id string) fleet.Work {
	return func(ctx context.Context, shard int) error {
		r.mu.Lock()
		i := len(r.intervals)
		r.intervals = append(r.intervals, interval{shard: shard, id: id, start: time.Now()})
		r.mu.Unlock()
		<-ctx.Done()
		if r.drain > 0 {
			time.Sleep(r.drain) // the work winding down, not a synchronisation
		}
		r.mu.Lock()
		r.intervals[i].end = time.Now()
		r.mu.Unlock()
		return nil
	}
}

func (r *recorder) snapshot() []interval {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.intervals)
}

// running returns, for each shard, who runs its work now.
func (r *recorder) running() map[int][]string {
	m := map[int][]string{}
	for _, iv := range r.snapshot() {
		if iv.end.IsZero() {
			m[iv.shard] = append(m[iv.shard], iv.id)
		}
	}
	return m
}

// checkOneHolder fails t if two runs of one shard's work overlap in time.
func (r *recorder) checkOneHolder(t *testing.T) {
	t.Helper()
	all := r.snapshot()
	for _, o := range overlaps(all) {
		t.Error(o)
	}
	t.Logf("at most one holder: %d runs of shards' work checked", len(all))
}

// overlaps describes every pair of runs of one shard's work that overlap.
func overlaps(all []interval) []string {
	by := map[int][]interval{}
	for _, iv := range all {
		by[iv.shard] = append(by[iv.shard], iv)
	}
	var found []string
	for shard, ivs := range by {
		for i, a := range ivs {
			for _, b := range ivs[i+1:] {
				// [a.start, a.end) and [b.start, b.end) meet unless one
				// ends before (or as) the other starts.
				aBeforeB := !a.end.IsZero() && !b.start.Before(a.end)
				bBeforeA := !b.end.IsZero() && !a.start.Before(b.end)
				if !aBeforeB && !bBeforeA {
					found = append(found, fmt.Sprintf("shard %d has two holders: %s from %s to %s, and %s from %s to %s", shard,
						a.id, a.start.Format("15:04:05.000"), fmtEnd(a.end), b.id, b.start.Format("15:04:05.000"), fmtEnd(b.end)))
				}
			}
		}
	}
	return found
}

func fmtEnd(t time.Time) string {
	if t.IsZero() {
		return "(still running)"
	}
	return t.Format("15:04:05.000")
}

// firstStartAfter returns when a replica other than notID first started
// shard's work after t.
func (r *recorder) firstStartAfter(shard int, notID string, t time.Time) (time.Time, string) {
	for _, iv := range r.snapshot() {
		if iv.shard == shard && iv.id != notID && !iv.start.Before(t) {
			return iv.start, iv.id
		}
	}
	return time.Time{}, ""
}

// lastEnd returns when id's last run of shard's work returned.
func (r *recorder) lastEnd(shard int, id string) time.Time {
	var end time.Time
	for _, iv := range r.snapshot() {
		if iv.shard == shard && iv.id == id && iv.end.After(end) {
			end = iv.end
		}
	}
	return end
}

// testMetrics records what a Fleet reports.
type testMetrics struct {
	mu        sync.Mutex
	held      int
	members   int
	fewest    int // the fewest members reported since watchMembers, 0 before
	handovers map[fleet.Handover]int
	took      map[fleet.Takeover][]time.Duration
}

func (m *testMetrics) ShardsHeld(n int) { m.mu.Lock(); m.held = n; m.mu.Unlock() }
func (m *testMetrics) Members(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.members = n
	if m.fewest > 0 {
		m.fewest = min(m.fewest, n)
	}
}

// watchMembers starts counting the fewest members reported from now, from
// the count reported last.
func (m *testMetrics) watchMembers() { m.mu.Lock(); m.fewest = m.members; m.mu.Unlock() }

func (m *testMetrics) fewestMembers() int { m.mu.Lock(); defer m.mu.Unlock(); return m.fewest }
func (m *testMetrics) Handover(k fleet.Handover) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handovers == nil {
		m.handovers = map[fleet.Handover]int{}
	}
	m.handovers[k]++
}
func (m *testMetrics) TookOver(from fleet.Takeover, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.took == nil {
		m.took = map[fleet.Takeover][]time.Duration{}
	}
	m.took[from] = append(m.took[from], d)
}

func (m *testMetrics) count(k fleet.Handover) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.handovers[k]
}

func (m *testMetrics) takeovers(from fleet.Takeover) []time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.took[from])
}

// gate sits in a replica's transport: open, requests pass; closed, they
// hang until it opens again or their context ends; failing, they fail at
// once.
type gate struct {
	mu      sync.Mutex
	blocked chan struct{}
	failing bool
	rt      http.RoundTripper
	// wrote is when the last write (PUT) to each Lease that succeeded was
	// sent, by the Lease's name.
	wrote map[string]time.Time
}

func (g *gate) wrap(rt http.RoundTripper) http.RoundTripper { g.rt = rt; return g }

func (g *gate) RoundTrip(req *http.Request) (*http.Response, error) {
	g.mu.Lock()
	blocked, failing := g.blocked, g.failing
	g.mu.Unlock()
	if failing {
		return nil, errors.New("gate: request refused")
	}
	if blocked != nil {
		select {
		case <-blocked:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	sent := time.Now()
	resp, err := g.rt.RoundTrip(req)
	if err == nil && req.Method == http.MethodPut && resp.StatusCode == http.StatusOK {
		g.mu.Lock()
		if g.wrote == nil {
			g.wrote = map[string]time.Time{}
		}
		g.wrote[path.Base(req.URL.Path)] = sent
		g.mu.Unlock()
	}
	return resp, err
}

// lastWrite returns when the last write to Lease name that succeeded was
// sent.
func (g *gate) lastWrite(name string) time.Time {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.wrote[name]
}

func (g *gate) hang() { g.mu.Lock(); g.blocked = make(chan struct{}); g.mu.Unlock() }
func (g *gate) fail() { g.mu.Lock(); g.failing = true; g.mu.Unlock() }
func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.blocked != nil {
		close(g.blocked)
		g.blocked = nil
	}
	g.failing = false
}

type replica struct {
	id      string
	f       *fleet.Fleet
	cancel  context.CancelFunc
	done    chan error
	metrics *testMetrics
	gate    *gate
}

// cluster runs in-process replicas of one fleet and the log of their work.
type cluster struct {
	t        *testing.T
	opts     fleet.Options // without Identity, Metrics, Logger
	rec      *recorder
	newFleet func(o fleet.Options, g *gate) (*fleet.Fleet, error)
	srv      *testbed.Server // nil on the in-memory store

	mu   sync.Mutex
	live map[string]*replica
	gone []*replica
}

func newCluster(t *testing.T, opts fleet.Options, newFleet func(fleet.Options, *gate) (*fleet.Fleet, error)) *cluster {
	c := &cluster{t: t, opts: opts, rec: &recorder{}, newFleet: newFleet, live: map[string]*replica{}}
	t.Cleanup(func() {
		var wg sync.WaitGroup
		for _, r := range c.replicas() {
			wg.Go(func() { c.stop(r.id) })
		}
		wg.Wait()
		c.rec.checkOneHolder(t)
	})
	return c
}

func (c *cluster) start(id string) *replica {
	c.t.Helper()
	o := c.opts
	o.Identity = id
	m := &testMetrics{}
	o.Metrics = m
	o.Logger = testr.NewWithOptions(c.t, testr.Options{LogTimestamp: true})
	g := &gate{}
	f, err := c.newFleet(o, g)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{id: id, f: f, cancel: cancel, done: make(chan error, 1), metrics: m, gate: g}
	go func() { r.done <- f.Run(ctx, c.rec.work(id)) }()
	c.mu.Lock()
	c.live[id] = r
	c.mu.Unlock()
	return r
}

func (c *cluster) replica(id string) *replica {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live[id]
}

func (c *cluster) replicas() []*replica {
	c.mu.Lock()
	defer c.mu.Unlock()
	var rs []*replica
	for _, r := range c.live {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].id < rs[j].id })
	return rs
}

func (c *cluster) remove(id string) *replica {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.live[id]
	delete(c.live, id)
	c.gone = append(c.gone, r)
	return r
}

// stop stops replica id gracefully (its Run's context ends) and waits for
// Run to return; it returns when Run returned.
func (c *cluster) stop(id string) time.Time {
	r := c.remove(id)
	r.cancel()
	return c.wait(r)
}

// kill kills replica id (fleet's test hook: no renewal, release or
// goodbye after it) and returns when it was killed.
func (c *cluster) kill(id string) time.Time {
	r := c.remove(id)
	at := time.Now()
	r.f.Kill()
	c.wait(r)
	return at
}

func (c *cluster) wait(r *replica) time.Time {
	select {
	case err := <-r.done:
		if err != nil && !strings.Contains(err.Error(), "killed") {
			c.t.Errorf("%s: Run: %v", r.id, err)
		}
	case <-time.After(30 * time.Second):
		c.t.Errorf("%s: Run has not returned 30s after it was told to stop", r.id)
	}
	return time.Now()
}

// waitFor polls cond until it holds or timeout passes, and returns how
// long it took.
func (c *cluster) waitFor(what string, timeout time.Duration, cond func() (bool, string)) time.Duration {
	c.t.Helper()
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		ok, state := cond()
		if ok {
			return time.Since(start)
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			c.t.Fatalf("not %s after %s: %s", what, timeout, state)
		}
	}
}

// balanced reports whether the live replicas hold every shard once, each
// floor(N/K) or ceil(N/K) of them, and the log agrees: each shard's work
// runs once, on the replica that holds it.
func (c *cluster) balanced() (bool, string) {
	live := c.replicas()
	n, k := c.opts.Shards, len(live)
	state := c.distribution()
	if k == 0 {
		return false, "no replica"
	}
	lo, hi := n/k, (n+k-1)/k
	owner := map[int]string{}
	for _, r := range live {
		held := r.f.Held()
		if len(held) < lo || len(held) > hi {
			return false, state
		}
		for _, s := range held {
			if o, dup := owner[s]; dup {
				return false, fmt.Sprintf("shard %d held by %s and %s; %s", s, o, r.id, state)
			}
			owner[s] = r.id
		}
	}
	running := c.rec.running()
	for s := range n {
		if ids := running[s]; len(ids) != 1 || ids[0] != owner[s] {
			return false, fmt.Sprintf("shard %d held by %q, its work runs on %v; %s", s, owner[s], ids, state)
		}
	}
	return true, state
}

func (c *cluster) waitBalanced(timeout time.Duration) time.Duration {
	c.t.Helper()
	d := c.waitFor("balanced", timeout, c.balanced)
	c.t.Logf("balanced after %s: %s", d.Round(time.Millisecond), c.distribution())
	return d
}

func (c *cluster) distribution() string {
	var parts []string
	for _, r := range c.replicas() {
		parts = append(parts, fmt.Sprintf("%s=%v", r.id, r.f.Held()))
	}
	return strings.Join(parts, " ")
}

func TestOverlapsFindsTwoHolders(t *testing.T) {
	at := func(ms int) time.Time { return time.Unix(0, 0).Add(time.Duration(ms) * time.Millisecond) }
	ok := []interval{{0, "a", at(0), at(10)}, {0, "b", at(10), at(20)}, {0, "a", at(25), time.Time{}}, {1, "b", at(0), time.Time{}}}
	if o := overlaps(ok); len(o) > 0 {
		t.Errorf("overlaps(%v) = %v, want none", ok, o)
	}
	for _, bad := range [][]interval{
		{{0, "a", at(0), at(10)}, {0, "b", at(9), at(20)}},
		{{0, "b", at(9), at(20)}, {0, "a", at(0), at(10)}},
		{{0, "a", at(0), time.Time{}}, {0, "b", at(5), at(6)}},
		{{0, "a", at(0), at(100)}, {0, "b", at(5), at(6)}, {0, "c", at(7), at(8)}},
	} {
		if len(overlaps(bad)) == 0 {
			t.Errorf("overlaps(%v) found none", bad)
		}
	}
}
