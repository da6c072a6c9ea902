package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// result is how one connection cycle ended.
type result struct {
	op       string // the request that ended it: "watchlist", "list" or "watch"
	err      error  // nil: a watch ended by itself (ended says why)
	ended    Reason // for err == nil
	received bool   // events arrived: the connection was of use
	live     bool   // live events arrived on a watch after a sync
}

// retry decides the wait before the next cycle.
type retry struct {
	backoff *wait.Backoff
	expired int // 410s in a row with no live event in between
	cfg     *config
}

func newRetry(c *config) *retry {
	r := &retry{cfg: c}
	r.reset()
	return r
}

func (r *retry) reset() {
	r.backoff = &wait.Backoff{Duration: r.cfg.minBackoff, Factor: 2, Jitter: 0.5, Steps: 1 << 30, Cap: r.cfg.maxBackoff}
}

// Run syncs until ctx is done, retrying every failure with capped
// exponential backoff and jitter, and returns once ctx is done and no
// handler call is under way. It may be called once. With WithSnapshot it
// saves the snapshot before it returns, and returns the error if that
// fails; otherwise it returns nil.
func (s *Syncer[T]) Run(ctx context.Context) (err error) {
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("runtime: Syncer.Run called twice")
	}
	ctx, end, err := s.closing.run(ctx)
	if err != nil {
		return err
	}
	defer end(s.release)
	defer s.cache.shutdown()
	switch {
	case s.src == nil: // driven by a Driver
		<-ctx.Done()
		return nil
	case s.lanes != nil:
		return s.runLanes(ctx)
	}
	return s.loop(ctx)
}

// loop syncs until ctx is done: the Syncer's, or one namespace's of a
// Syncer over several.
func (s *Syncer[T]) loop(ctx context.Context) (err error) {
	if s.cfg.snapshotPath != "" {
		if _, err := os.Stat(s.cfg.snapshotPath); err == nil {
			snap := make(chan loaded[T], 1)
			go func() { snap <- s.loadSnapshot() }() // while the first requests are under way
			s.snap = snap
		} else {
			s.cfg.logger.V(1).Info("no snapshot yet; starting cold", "resource", s.res.String(), "path", s.cfg.snapshotPath)
		}
		saving, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); s.saveSnapshots(saving) }()
		defer func() {
			stop()
			<-done
			if _, serr := s.saveSnapshot(); serr != nil {
				err = fmt.Errorf("runtime: %s: saving the snapshot: %w", s.res, serr)
			}
		}()
	}
	if s.cfg.lagProbe > 0 {
		probing, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); s.probeLoop(probing) }()
		defer func() { stop(); <-done }()
	}
	r := newRetry(&s.cfg)
	for ctx.Err() == nil {
		cctx, cancel := context.WithCancel(ctx)
		s.lag.restart.Store(&cancel) // a probe restarts a stalled watch (lag.go)
		res := s.cycle(cctx)
		cancel()
		if ctx.Err() != nil {
			break
		}
		if s.lag.stalled.Swap(false) {
			res = result{op: "watch", ended: ReasonStalled, received: true}
		}
		if !sleep(ctx, s.settle(r, res)) {
			break
		}
	}
	return nil
}

// settle reports how a cycle ended and returns the wait before the next.
// A watch that ended by itself after delivering events, or at its timeout,
// is progress: the next one opens at once. A watch that ended at once with
// nothing, and every failure, wait with a growing backoff; a 410 Gone
// relists at once the first time and backs off when it comes again before
// any live event (a watch cache window shorter than a LIST).
func (s *Syncer[T]) settle(r *retry, res result) time.Duration {
	log := s.cfg.logger.WithValues("resource", s.res.String())
	if res.received {
		r.reset()
	}
	if res.live {
		r.expired = 0
	}
	if res.err == nil {
		s.cfg.metrics.Reconnected(res.ended)
		if res.ended == ReasonWatchTimeout {
			log.V(2).Info("watch ended at its timeout; reconnecting", "resourceVersion", s.rv)
			r.reset()
		} else {
			log.V(1).Info("watch closed before its timeout; reconnecting", "resourceVersion", s.rv)
		}
		return 0
	}
	kind := Classify(res.err)
	var wait time.Duration
	if kind == KindExpired {
		s.rv, s.due = "", ReasonExpired
		s.fromStore = !s.noMeta && s.cache.settled(s.part) // its store is a better snapshot than any file
		r.expired++
		if r.expired > 1 {
			wait = r.backoff.Step()
		}
	} else if !res.received {
		wait = r.backoff.Step()
	}
	wait = max(wait, retryAfter(res.err))
	if s.part.name != "" && refusal(kind) {
		s.cache.refuse(s.part, &NameError{Key: s.part.key(), Kind: kind, Err: res.err})
	}
	s.cfg.metrics.Reconnected(ReasonFailed)
	log.Info("sync failed; retrying", "op", res.op, "kind", kind.String(), "retryIn", wait.Round(time.Millisecond), "err", res.err.Error())
	s.report(&SyncError{Kind: kind, Resource: s.res.String(), Op: res.op, RetryIn: wait, Err: res.err})
	return wait
}

// cycle runs one connection: a full sync when one is due, then a watch
// until it ends. A warm start that cannot go on warm, or whose attempts
// keep failing the same way, goes on cold at once, in the same resync.
func (s *Syncer[T]) cycle(ctx context.Context) result {
	s.checkDrift(ctx) // between two watches; may start a warm resync from the store
	var res result
	cold := true
	switch {
	case s.rv != "" && s.warm != nil:
		res, cold = s.warmWatch(ctx)
	case s.rv != "":
		return s.watchFrom(ctx)
	case s.snap != nil:
		snap := s.snap
		s.snap = nil // one attempt
		res, cold = s.warmSync(ctx, snap)
	case s.fromStore:
		s.fromStore = false // one attempt
		res, cold = s.warmSync(ctx, nil)
	}
	if !cold && !s.warmFailed(ctx, res) {
		return res
	}
	s.rv, s.warm = "", nil // a warm start that lost its watch, or went cold
	if s.cfg.firstWatchList() && modes.choose(s.src.key, time.Now()) == ModeWatchList {
		if res, fallback := s.watchList(ctx); !fallback {
			return res
		}
	}
	if err := s.listSync(ctx); err != nil {
		return result{op: "list", err: err}
	}
	return s.watchFrom(ctx)
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
