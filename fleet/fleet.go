package fleet

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
)

// Work runs one shard's work (its syncer and workers) until ctx is done,
// and returns. It must return within LeaseDuration-RenewDeadline of ctx
// being cancelled: a replica that loses a shard waits for its Work to
// return, but another may take the shard once its lease expires.
// context.Cause(ctx) tells why it was cancelled (ErrRebalanced, ErrLost,
// ErrStopping). Work that returns before ctx is done is started again
// after a backoff while the replica holds the shard.
type Work func(ctx context.Context, shard int) error

// Causes of a Work's context being cancelled, from context.Cause.
var (
	// ErrRebalanced: the replica holds more shards than its quota and gives
	// this one up to a replica under its quota.
	ErrRebalanced = errors.New("fleet: shard given up to rebalance")
	// ErrLost: the replica could not renew the shard's lease within
	// RenewDeadline, or found it taken.
	ErrLost = errors.New("fleet: shard's lease lost")
	// ErrStopping: Run's context ended.
	ErrStopping = errors.New("fleet: stopping")
)

// errKilled is the test hook's cause: the replica vanishes as with SIGKILL.
var errKilled = errors.New("fleet: killed")

// Fleet divides Shards among the live replicas of a program through
// coordination.k8s.io/v1 Leases and runs each held shard's Work. Make one
// with New and call Run once.
type Fleet struct {
	o      Options
	client coordinationv1client.LeasesGetter
	leases coordinationv1client.LeaseInterface
	log    logr.Logger
	prefs  []int // shards in this replica's order of preference
	rank   []int // shard -> its index in prefs

	// alive ends only when the replica is killed (kill, a test hook):
	// every API request derives from it, so that a killed replica sends
	// nothing more, and what watches it skips every goodbye.
	alive context.Context
	kill  context.CancelFunc

	started atomic.Bool

	// Used by the goroutine of Run only.
	shards   []observation          // each shard's Lease as last seen
	members  map[string]observation // membership Leases as last seen, by name
	suspects map[string]string      // identity -> its membership's resourceVersion when one of its shards was seen expired
	member   *leaseLock
	memberOK bool // member has read or written the Lease, so Update may go first
	joined   time.Time
	// ours are the shards whose Lease named this replica, while it did not
	// hold them, at the last look; unsure are takes whose outcome could not
	// be made sure of, by shard, with the version each was conditional on.
	ours   []int
	unsure map[int]*leaseLock

	mu       sync.Mutex
	holdings map[int]*holding
	wg       sync.WaitGroup
}

// New returns a Fleet whose Leases are read and written with cfg. When cfg
// sets no client-side rate limit (QPS 0), the fleet's client gets one that
// its renewals fit in: twice (Shards+2) requests per RetryPeriod.
func New(cfg *rest.Config, o Options) (*Fleet, error) {
	if cfg == nil {
		return nil, errors.New("fleet.New: nil *rest.Config")
	}
	c := rest.AddUserAgent(rest.CopyConfig(cfg), "fleet")
	if c.QPS == 0 && c.RateLimiter == nil {
		d := o.withDefaults()
		burst := 2 * (d.Shards + 2)
		c.QPS = max(5, float32(burst)/float32(d.RetryPeriod.Seconds()))
		c.Burst = max(10, burst)
	}
	cs, err := coordinationv1client.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("fleet.New: %w", err)
	}
	return NewForClient(cs, o)
}

// NewForClient returns a Fleet that reads and writes its Leases with
// client, e.g. kubernetes.Interface's CoordinationV1().
func NewForClient(client coordinationv1client.LeasesGetter, o Options) (*Fleet, error) {
	if client == nil {
		return nil, errors.New("fleet.NewForClient: nil client")
	}
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	f := &Fleet{
		o:        o,
		client:   client,
		leases:   client.Leases(o.Namespace),
		log:      o.Logger.WithValues("fleet", o.Name, "identity", o.Identity),
		prefs:    preference(o.Shards, o.Identity),
		rank:     make([]int, o.Shards),
		shards:   make([]observation, o.Shards),
		members:  map[string]observation{},
		suspects: map[string]string{},
		unsure:   map[int]*leaseLock{},
		holdings: map[int]*holding{},
	}
	for i, s := range f.prefs {
		f.rank[s] = i
	}
	f.alive, f.kill = context.WithCancel(context.Background())
	f.member = f.newLock(memberLeaseName(o.Name, o.Identity), roleMember)
	return f, nil
}

// Held returns the shards this replica works on now (not those it is
// giving up), in increasing order.
func (f *Fleet) Held() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := f.workingLocked()
	slices.Sort(held)
	return held
}

// workingLocked returns the shards this replica works on and is not
// giving up, in no order. f.mu is held.
func (f *Fleet) workingLocked() []int {
	var held []int
	for s, h := range f.holdings {
		if !h.stopping {
			held = append(held, s)
		}
	}
	return held
}

// Run joins the fleet, runs work for each shard this replica holds, and
// keeps the share of shards fair until ctx ends. Then it stops every
// shard's work, waits for it, releases the shards' Leases and its
// membership, and returns nil. It returns an error at once only when work
// is nil or Run was called before.
func (f *Fleet) Run(ctx context.Context, work Work) error {
	if work == nil {
		return errors.New("fleet: Run with nil work")
	}
	if !f.started.CompareAndSwap(false, true) {
		return errors.New("fleet: Run called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(f.alive, cancel)()
	f.joined = time.Now()
	f.log.Info("joining fleet", "shards", f.o.Shards, "leaseDuration", f.o.LeaseDuration,
		"renewDeadline", f.o.RenewDeadline, "retryPeriod", f.o.RetryPeriod)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for round := 0; ; round++ {
		select {
		case <-ctx.Done():
			return f.leave()
		case <-timer.C:
		}
		// The first round only joins and looks: replicas started together
		// see each other before they take shards, rather than the first
		// taking all of them and giving most back.
		f.round(ctx, work, round > 0)
		timer.Reset(jitter(f.o.RetryPeriod))
	}
}

func jitter(d time.Duration) time.Duration {
	return d + time.Duration(rand.Float64()*jitterFactor*float64(d))
}

// requestTimeout bounds one API request, so that a hung one leaves time for
// another within RenewDeadline.
func (f *Fleet) requestTimeout() time.Duration { return max(f.o.RenewDeadline/2, f.o.RetryPeriod) }

// request returns the context of one API request made on behalf of parent:
// it ends with parent, after requestTimeout, or when the replica is killed.
func (f *Fleet) request(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	stop := context.AfterFunc(f.alive, cancel)
	return ctx, func() { stop(); cancel() }
}

// round renews this replica's membership, looks at the fleet, and gives up
// or takes shards to meet its quota.
func (f *Fleet) round(ctx context.Context, work Work, acquire bool) {
	f.renewMembership(ctx)
	lctx, cancel := f.request(ctx, f.requestTimeout())
	list, err := f.leases.List(lctx, metav1.ListOptions{LabelSelector: LabelName + "=" + f.o.Name})
	cancel()
	if err != nil {
		f.log.V(1).Info("cannot list the fleet's Leases", "err", err)
		return
	}
	now := time.Now()
	v := f.look(list.Items, now)
	f.o.Metrics.Members(len(v.members))
	for _, l := range v.stale {
		f.deleteStale(ctx, l)
	}
	f.forgetSettled(v)
	// Leases that name this replica while it does not hold them (a take
	// whose answer was lost, a release that failed, an earlier run): the
	// others count them as this replica's, so it takes them first, as far
	// as its quota goes, and releases the rest, rather than leave them to
	// expire.
	f.ours = f.ours[:0]
	ours := map[int]bool{}
	for _, s := range f.prefs {
		if o := v.shards[s]; o.exists() && o.holder == f.o.Identity && !f.holds(s) {
			f.ours = append(f.ours, s)
			ours[s] = true
		}
	}
	q := quota(f.o.Shards, v.members, f.o.Identity)
	held := f.running()
	if len(held) > q {
		why := fmt.Sprintf("over quota: holds %d, quota %d (%d shards over %d members)", len(held), q, f.o.Shards, len(v.members))
		for _, s := range held[q:] { // the least preferred
			f.stop(s, ErrRebalanced, why)
		}
		for _, s := range f.ours {
			f.giveUp(ctx, s)
		}
		return
	}
	if !acquire {
		return
	}
	want := q - len(held)
	for _, s := range f.ours {
		switch {
		case ctx.Err() != nil:
			return
		case want == 0:
			f.giveUp(ctx, s)
		case f.acquire(ctx, work, s, q, len(v.members)):
			want--
		}
	}
	for _, s := range f.prefs {
		if want == 0 || ctx.Err() != nil {
			return
		}
		if ours[s] || f.holds(s) || !v.shards[s].free(now) {
			continue
		}
		if f.acquire(ctx, work, s, q, len(v.members)) {
			want--
		}
	}
}

// renewMembership writes this replica's membership Lease: holder, renewed
// now. Its first write, or one after an error, reads the Lease first.
func (f *Fleet) renewMembership(ctx context.Context) {
	rctx, cancel := f.request(ctx, f.requestTimeout())
	defer cancel()
	rec := f.record(time.Now(), f.joined, 0)
	if f.memberOK {
		if err := f.member.update(rctx, rec); err == nil {
			return
		} else if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			f.log.V(1).Info("cannot renew membership", "err", err)
			return
		}
		f.memberOK = false
	}
	_, _, err := f.member.get(rctx)
	switch {
	case apierrors.IsNotFound(err):
		err = f.member.create(rctx, rec)
	case err == nil:
		err = f.member.update(rctx, rec)
	}
	if err != nil {
		f.log.V(1).Info("cannot renew membership", "err", err)
		return
	}
	f.memberOK = true
}

// deleteStale deletes the membership Lease of a replica that is gone
// (expired, or released a lease ago), unless it was written since it was
// read.
func (f *Fleet) deleteStale(ctx context.Context, l coordinationv1.Lease) {
	rctx, cancel := f.request(ctx, f.requestTimeout())
	defer cancel()
	rv := l.ResourceVersion
	err := f.leases.Delete(rctx, l.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &rv}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		f.log.V(1).Info("cannot delete a stale membership", "lease", l.Name, "err", err)
		return
	}
	if err == nil {
		f.log.V(1).Info("deleted a stale membership", "lease", l.Name)
	}
}

// leave ends Run. Gracefully (Run's context ended): it releases the
// membership Lease first (no holder, as a shard is released), so that the
// others count without this replica at once (and delete it); it releases
// the Leases that may name this replica while it does not hold them (a
// take whose outcome it could not make sure of, one that named it at the
// last look); then it waits while every holding stops its work, waits for
// it and releases its Lease. Killed: it waits for the holdings, which
// write nothing.
func (f *Fleet) leave() error {
	if f.alive.Err() != nil {
		f.wg.Wait()
		return errKilled
	}
	ctx, cancel := f.request(context.Background(), f.o.RenewDeadline)
	if err := f.disown(ctx, f.member); err != nil {
		f.log.Info("cannot release membership; it expires after LeaseDuration", "err", err)
	}
	for s, lock := range f.unsure {
		if f.holds(s) {
			continue // its holding releases it
		}
		if err := f.disown(ctx, lock); err != nil {
			f.log.Info("cannot make sure a shard's Lease does not name this replica; it expires after LeaseDuration", "shard", s, "err", err)
		}
	}
	for _, s := range f.ours {
		if _, unsure := f.unsure[s]; !unsure {
			f.giveUp(ctx, s)
		}
	}
	cancel()
	f.wg.Wait()
	f.log.Info("left fleet")
	return nil
}

// running returns the shards this replica works on and is not giving up,
// most preferred first.
func (f *Fleet) running() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	held := f.workingLocked()
	slices.SortFunc(held, func(a, b int) int { return f.rank[a] - f.rank[b] })
	return held
}

// holds reports whether a holding of shard exists, stopping or not: a
// shard is not taken again before its last holding has ended.
func (f *Fleet) holds(shard int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.holdings[shard]
	return ok
}

// countLocked returns the number of holdings not stopping.
func (f *Fleet) countLocked() int {
	n := 0
	for _, h := range f.holdings {
		if !h.stopping {
			n++
		}
	}
	return n
}
