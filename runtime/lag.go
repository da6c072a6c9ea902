package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// How far behind the server a Syncer's store is (WithLagProbe).
//
// A probe asks the server where it is: a consistent LIST of one item of
// the Syncer's selection, whose resourceVersion R is etcd's revision, moved
// by writes to any resource. The store holds the server's state at R once
// it holds every change of its selection up to R; on a resource quiet
// while others change, its own resourceVersion S stays below R until a
// bookmark (about a minute), though nothing is missing. So where S < R the
// probe watches from S with a short timeout: the server sends every change
// after S at once, then a bookmark at its current resourceVersion. No
// change up to R: the store was current at the probe. A change at E <= R:
// the store is behind until it applies E; the time from the probe until
// then is the lag.

// WithLagProbe makes the Syncer probe every interval how far behind the
// server its store is (see Syncer.Lag; LagMetrics), and restart a watch
// that delivers nothing while the store stays behind for two intervals (a
// half-open connection, a proxy that stopped forwarding): the stream is
// closed and the watch reopened from the store's resourceVersion,
// counted and logged with the lag it had. Each probe costs the server a
// LIST of one item, and, when the store's resourceVersion is below the
// server's, a watch of about a second. 0 (the default) probes only for
// WaitNoOlderThan.
func WithLagProbe(interval time.Duration) Option { return func(c *config) { c.lagProbe = interval } }

// Lag is how far behind the server a Syncer's store was at its last probe.
type Lag struct {
	// Behind is the time from the probe until the store held the server's
	// state at it: 0 when it already did; while it has not, the time since
	// the probe, growing.
	Behind time.Duration
	// Caught tells whether the store has reached the server's state at
	// the probe.
	Caught bool
	// ProbedAt is when the probe asked the server.
	ProbedAt time.Time
	// ServerResourceVersion is the server's at the probe, and
	// StoreResourceVersion the store's then.
	ServerResourceVersion, StoreResourceVersion string
}

// LagError is a read that asked for data no older than Bound
// (WaitNoOlderThan) from a store that was Behind the server by more.
type LagError struct {
	Resource string
	Bound    time.Duration
	Behind   time.Duration // at least this much: the store had not caught up when the bound passed
	Err      error         // the probe's failure, if that is why
}

func (e *LagError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("runtime: %s: cannot tell whether the store is within %s of the server: %v", e.Resource, e.Bound, e.Err)
	}
	return fmt.Sprintf("runtime: %s: the store is %s or more behind the server, past the bound of %s", e.Resource, e.Behind.Round(time.Millisecond), e.Bound)
}

func (e *LagError) Unwrap() error { return e.Err }

// LagMetrics is what a Metrics may implement besides, to export the lag a
// probe measures (WithLagProbe), as SnapshotMetrics is for snapshots.
// NopMetrics and package prometheusmetrics implement it.
type LagMetrics interface {
	// Lagged is called after each probe with the store's lag (0 when it
	// held the server's state) and its resourceVersion then.
	Lagged(behind time.Duration, storeRV string)
	// WatchStalled is called when a watch that delivered nothing while
	// the store stayed behind is restarted.
	WatchStalled()
}

// Lagged implements LagMetrics.
func (NopMetrics) Lagged(time.Duration, string) {}

// WatchStalled implements LagMetrics.
func (NopMetrics) WatchStalled() {}

// ReasonStalled: a watch was restarted because it delivered nothing while
// a probe showed the store behind (WithLagProbe).
const ReasonStalled Reason = "stalled"

// probed is what one probe found.
type probed struct {
	at            time.Time
	server, store string
	target        string // the resourceVersion the store must reach to hold the server's state at the probe; "" when it did
	proven        bool   // target is a change the server showed (not the server's resourceVersion, reached at a bookmark)
	err           error
	reached       atomic.Int64 // UnixNano when the store reached target; 0 while not
}

// lagState is a sync loop's probes.
type lagState struct {
	mu      sync.Mutex
	last    *probed
	flight  chan struct{} // closed when the probe under way ends
	restart atomic.Pointer[context.CancelFunc]
	stalled atomic.Bool
}

// probeShared probes once for every caller that asks while it runs.
func (s *Syncer[T]) probeShared(ctx context.Context) *probed {
	l := &s.lag
	l.mu.Lock()
	if f := l.flight; f != nil {
		l.mu.Unlock()
		select {
		case <-f:
		case <-ctx.Done():
			return &probed{at: time.Now(), err: ctx.Err()}
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.last
	}
	f := make(chan struct{})
	l.flight = f
	l.mu.Unlock()
	p := s.probe(ctx)
	l.mu.Lock()
	if p.err == nil || l.last == nil {
		l.last = p
	}
	l.flight = nil
	close(f)
	l.mu.Unlock()
	return p
}

// probe asks the server where it is, and what the store must reach to
// hold its state there.
func (s *Syncer[T]) probe(ctx context.Context) *probed {
	p := &probed{at: time.Now()}
	p.server, p.err = s.src.serverRV(ctx)
	if p.err != nil {
		return p
	}
	var settled bool
	p.store, settled = s.cache.partAt(s.part)
	switch {
	case !settled:
		p.target = p.server // a sync under way ends at or past it
	case p.store == "":
		p.target = p.server
	default:
		cmp, err := compareVersions(p.store, p.server)
		if err != nil {
			p.err = err
			return p
		}
		if cmp < 0 {
			last, err := s.src.lastChange(ctx, p.store, p.server)
			if err != nil {
				s.cfg.logger.V(1).Info("lag probe: the probe's watch could not tell; waiting for the server's resourceVersion", "resource", s.res.String(), "err", err.Error())
				last = p.server // an upper bound: the store reaches it at its next event or bookmark
			}
			p.target, p.proven = last, err == nil && last != ""
		}
	}
	switch ok, _ := s.cache.reachedTarget(s.part, p.target); {
	case p.target == "":
		p.reached.Store(p.at.UnixNano()) // current at the probe
	case ok:
		p.reached.Store(time.Now().UnixNano()) // reached while the probe asked
	}
	return p
}

// behind tells how far behind the store was at p, as of now.
func (p *probed) behind(now time.Time) (time.Duration, bool) {
	if r := p.reached.Load(); r != 0 {
		return max(time.Duration(r-p.at.UnixNano()), 0), true
	}
	return now.Sub(p.at), false
}

// waitReached waits until the store reached p's target, until the
// deadline (none when zero) or ctx; it tells whether it did.
func (s *Syncer[T]) waitReached(ctx context.Context, p *probed, deadline time.Time) bool {
	var limit <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		limit = t.C
	}
	res, _ := s.waitLoop(ctx, limit, func() (bool, error) { return s.cache.reachedTargetLocked(s.part, p.target) })
	if res == WaitObserved || res == WaitFailedOpen {
		p.reached.CompareAndSwap(0, time.Now().UnixNano())
		return true
	}
	return false
}

// Lag returns how far behind the server the store was at its last probe;
// ok is false before the first probe (WithLagProbe, WaitNoOlderThan). Over
// several namespaces or names, the part furthest behind.
func (s *Syncer[T]) Lag() (lag Lag, ok bool) {
	for _, l := range s.loops() {
		l.lag.mu.Lock()
		p := l.lag.last
		l.lag.mu.Unlock()
		if p == nil || p.err != nil {
			continue
		}
		behind, caught := p.behind(time.Now())
		if !ok || behind > lag.Behind {
			lag, ok = Lag{Behind: behind, Caught: caught, ProbedAt: p.at, ServerResourceVersion: p.server, StoreResourceVersion: p.store}, true
		}
	}
	return lag, ok
}

// loops returns the Syncer's sync loops: itself, or its lanes'.
func (s *Syncer[T]) loops() []*Syncer[T] {
	if s.lanes == nil {
		return []*Syncer[T]{s}
	}
	s.lanes.mu.Lock()
	defer s.lanes.mu.Unlock()
	out := make([]*Syncer[T], 0, len(s.lanes.byKey))
	for _, l := range s.lanes.byKey {
		out = append(out, l.s)
	}
	return out
}

// WaitNoOlderThan waits until the store holds the server's state of at
// most d ago, and returns nil: a probe younger than d is used, or the
// server probed now (one probe for concurrent callers). If the store has
// not reached that state d after the probe, it fails with a *LagError
// saying how far behind it is. d = 0 probes now and waits, bounded by ctx
// alone, until the store holds the server's state at the probe: a
// consistent read from the store. A store at the server's state answers
// in the probe's time: a LIST of one item, and, on a resource quiet while
// others change, a watch of about a second. It composes with the waits of
// read-your-own-writes: either first.
func (s *Syncer[T]) WaitNoOlderThan(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("runtime: WaitNoOlderThan(%s): the bound must not be negative", d)
	}
	var errs []error
	for _, l := range s.loops() {
		errs = append(errs, l.waitNoOlderThan(ctx, d))
	}
	return errors.Join(errs...)
}

func (s *Syncer[T]) waitNoOlderThan(ctx context.Context, d time.Duration) error {
	if s.src == nil {
		return fmt.Errorf("runtime: WaitNoOlderThan on the Syncer of %s, driven by a Driver: no server to ask", s.res)
	}
	began := time.Now()
	s.lag.mu.Lock()
	p := s.lag.last
	s.lag.mu.Unlock()
	if d == 0 || p == nil || p.err != nil || began.Sub(p.at) >= d {
		p = s.probeShared(ctx)
		if d == 0 && p.err == nil && p.at.Before(began) { // joined a probe begun before this read
			p = s.probeShared(ctx)
		}
	}
	if p.err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &LagError{Resource: s.res.String(), Bound: d, Err: p.err}
	}
	var deadline time.Time
	if d > 0 {
		deadline = p.at.Add(d)
	}
	reached := s.waitReached(ctx, p, deadline)
	if reached && (d == 0 || time.Since(p.at) <= d) {
		return nil
	}
	if err := ctx.Err(); err != nil && d == 0 {
		return err
	}
	return &LagError{Resource: s.res.String(), Bound: d, Behind: time.Since(p.at)}
}

// probeLoop probes every interval until ctx is done and measures the lag:
// a probe whose state the store has not reached is followed, interval by
// interval, until it has (the lag told meanwhile grows). A watch is
// stalled when a probe proved a change the store lacks and the store's
// resourceVersion then stays put for an interval: it is restarted.
func (s *Syncer[T]) probeLoop(ctx context.Context) {
	every := s.cfg.lagProbe
	t := time.NewTicker(every)
	defer t.Stop()
	m, _ := s.cfg.metrics.(LagMetrics)
	tell := func(p *probed) {
		if m != nil {
			behind, _ := p.behind(time.Now())
			m.Lagged(behind, s.cache.observedRV())
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !s.cache.settled(s.part) {
			continue // a sync under way: its own timeouts bound it
		}
		p := s.probeShared(ctx)
		if p.err != nil {
			if ctx.Err() == nil {
				s.cfg.logger.V(1).Info("lag probe failed", "resource", s.res.String(), "err", p.err.Error())
			}
			continue
		}
		last := p.store
		for !s.waitReached(ctx, p, time.Now().Add(every)) && ctx.Err() == nil {
			tell(p)
			rv, settled := s.cache.partAt(s.part)
			if !settled {
				break
			}
			if p.proven && rv == last {
				s.stalled(p)
				break
			}
			last = rv
		}
		tell(p)
	}
}

// stalled restarts the watch of a store that stayed behind p.
func (s *Syncer[T]) stalled(p *probed) {
	behind, _ := p.behind(time.Now())
	s.cfg.logger.Info("watch stalled: it delivered nothing while the store stayed behind the server; restarting it", "resource", s.res.String(),
		"behind", behind.Round(time.Millisecond), "storeResourceVersion", p.store, "serverResourceVersion", p.server, "lacking", p.target)
	if m, ok := s.cfg.metrics.(LagMetrics); ok {
		m.WatchStalled()
	}
	if cancel := s.lag.restart.Load(); cancel != nil {
		s.lag.stalled.Store(true)
		(*cancel)()
	}
}

// partAt returns p's resourceVersion and whether p is settled (synced, no
// resync under way).
func (c *cache[T]) partAt(p *part) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.rv, p.synced && !p.inResync
}

// reachedTarget tells whether p holds target (a probe's): "" when the
// probe found the store current.
func (c *cache[T]) reachedTarget(p *part, target string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reachedTargetLocked(p, target)
}

// reachedTargetLocked is reachedTarget with c.mu held.
func (c *cache[T]) reachedTargetLocked(p *part, target string) (bool, error) {
	if target == "" {
		return true, nil
	}
	return p.reached(target)
}
