package fleet

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	rl "k8s.io/client-go/tools/leaderelection/resourcelock"
)

// A holding is this replica's hold on one shard: the shard's Lease,
// renewed every RetryPeriod, and its Work.
//
// client-go's LeaderElector is not used for it, because of the order in
// which it stops: when it cannot renew, or its context ends, it returns
// from renew and releases the Lease (ReleaseOnCancel) before
// OnStoppedLeading runs, and it never waits for the goroutine it started
// OnStartedLeading in. Its guarantee is for a process that exits when it
// stops leading; a replica that goes on living and holds other shards
// needs the opposite order: cancel the shard's Work, wait until it has
// returned, and only then release (or stop renewing and let the lease
// expire). hold does that, with the elector's rules otherwise: the same
// records (resourcelock.LeaderElectionRecord in a Lease, written
// conditionally as resourcelock.LeaseLock writes it), RenewDeadline
// counted from the last renewal that succeeded, expiry judged by the time
// a version of the Lease was observed rather than by the holder's
// timestamps, and release as the elector writes it.
type holding struct {
	shard int
	// lock and rec (the record last written) are used by one request at
	// a time: the acquisition, then the renewals, then the release.
	lock *leaseLock
	rec  rl.LeaderElectionRecord
	// stopc carries the one request to give the shard up.
	stopc chan stopRequest
	// stopping is set, under Fleet.mu, once the work was told to stop.
	stopping bool
}

type stopRequest struct {
	cause error
	why   string
}

// startHolding records the holding of shard, whose Lease this replica
// wrote at sent, and starts its work. It returns the number of shards held.
func (f *Fleet) startHolding(ctx context.Context, work Work, shard int, lock *leaseLock, rec rl.LeaderElectionRecord, sent time.Time) int {
	h := &holding{shard: shard, lock: lock, rec: rec, stopc: make(chan stopRequest, 1)}
	f.mu.Lock()
	f.holdings[shard] = h
	n := f.countLocked()
	f.mu.Unlock()
	f.o.Metrics.ShardsHeld(n)
	f.wg.Add(1)
	go f.hold(ctx, work, h, sent)
	return n
}

// stop asks shard's holding to stop its work, wait for it, and release
// the shard.
func (f *Fleet) stop(shard int, cause error, why string) {
	f.mu.Lock()
	h := f.holdings[shard]
	if h == nil || h.stopping {
		f.mu.Unlock()
		return
	}
	h.stopping = true
	n := f.countLocked()
	f.mu.Unlock()
	f.o.Metrics.ShardsHeld(n)
	h.stopc <- stopRequest{cause: cause, why: why}
}

// markStopping notes that h stops of its own accord (it lost its lease,
// or Run's context ended).
func (f *Fleet) markStopping(h *holding) {
	f.mu.Lock()
	h.stopping = true
	n := f.countLocked()
	f.mu.Unlock()
	f.o.Metrics.ShardsHeld(n)
}

func (f *Fleet) forget(h *holding) {
	f.mu.Lock()
	delete(f.holdings, h.shard)
	n := f.countLocked()
	f.mu.Unlock()
	f.o.Metrics.ShardsHeld(n)
}

// renewal is the outcome of one renewal of a shard's Lease.
type renewal struct {
	sent  time.Time // when the write that succeeded was sent
	err   error
	taken string // set when the Lease is no longer this replica's: why
}

// hold runs a shard's work while this replica holds the shard's Lease,
// acquired by a write sent at sent, and ends the holding.
//
// The work runs until the first of: RenewDeadline has passed since the
// last successful renewal was sent (a timer, so that a request that hangs
// cannot delay it), the Lease is found taken, the coordinator gives the
// shard up, or Run's context ends. Then the work's context is cancelled
// and hold waits for the work to return, renewing the Lease meanwhile so
// that it stays this replica's while the work winds down; then it
// releases the Lease. Another replica takes a lease it did not see
// released only LeaseDuration after it observed the last renewal, which
// was sent after this replica's deadline started: so the work has
// LeaseDuration-RenewDeadline to return before anyone else may start it.
func (f *Fleet) hold(ctx context.Context, work Work, h *holding, sent time.Time) {
	defer f.wg.Done()
	log := f.log.WithValues("shard", h.shard)
	// The work's context ends when hold says so, not with Run's: a
	// graceful stop goes through the same path as any other.
	workCtx, cancelWork := context.WithCancelCause(context.WithoutCancel(ctx))
	defer cancelWork(nil)
	workDone := make(chan error, 1)
	startWork := func() { go func() { workDone <- work(workCtx, h.shard) }() }
	startWork()
	working := true

	lastSent := sent
	deadline := time.NewTimer(time.Until(lastSent.Add(f.o.RenewDeadline)))
	defer deadline.Stop()
	renewAt := time.NewTimer(f.o.RetryPeriod)
	defer renewAt.Stop()
	renewed := make(chan renewal, 1)
	renewing, taken := false, false
	var restart <-chan time.Time
	backoff := f.o.RetryPeriod

	var (
		stopping  bool
		kind      Handover
		why       string
		stoppedAt time.Time
	)
	stopWork := func(k Handover, cause error, reason string, marked bool) {
		if stopping {
			return
		}
		stopping, kind, why, stoppedAt = true, k, reason, time.Now()
		if !marked {
			f.markStopping(h)
		}
		cancelWork(cause)
		restart = nil
		if k == Lost {
			// Said at once; a release, if the server answers, comes once
			// the work has returned.
			log.Info("lost shard", "why", reason)
			f.o.Metrics.Handover(Lost)
		}
	}

	for working || !stopping {
		select {
		case <-f.alive.Done():
			// Killed (a test hook that models SIGKILL): the work ends with
			// the process, and nothing is written, released or logged.
			cancelWork(errKilled)
			if working {
				<-workDone
			}
			if renewing {
				<-renewed
			}
			f.forget(h)
			return
		case <-ctx.Done():
			stopWork(Released, ErrStopping, "stopping: Run's context ended", false)
			ctx = context.Background() // seen once
		case r := <-h.stopc:
			stopWork(Released, r.cause, r.why, true)
		case <-deadline.C:
			if !stopping {
				stopWork(Lost, ErrLost, fmt.Sprintf("not renewed within RenewDeadline %s: the last renewal that succeeded was sent %s ago",
					f.o.RenewDeadline, time.Since(lastSent).Round(time.Millisecond)), false)
			}
		case err := <-workDone:
			working = false
			if !stopping {
				log.Error(err, "shard's work returned before its context ended; starting it again", "after", backoff)
				restart = time.After(backoff)
				backoff = min(2*backoff, 16*f.o.RetryPeriod)
			}
		case <-restart:
			restart = nil
			if !stopping && time.Now().Before(lastSent.Add(f.o.RenewDeadline)) {
				startWork()
				working = true
			}
		case <-renewAt.C:
			timeout := f.requestTimeout()
			if !stopping {
				// A renewal that answers after the deadline is of no use
				// to the work, which has stopped by then.
				timeout = min(timeout, time.Until(lastSent.Add(f.o.RenewDeadline)))
			}
			renewing = true
			go func() { renewed <- f.renew(h, timeout) }()
		case r := <-renewed:
			renewing = false
			switch {
			case r.err == nil:
				lastSent = r.sent
				if !stopping {
					deadline.Reset(time.Until(lastSent.Add(f.o.RenewDeadline)))
				}
			case r.taken != "":
				taken = true
				if !stopping {
					stopWork(Lost, ErrLost, r.taken, false)
				}
				log.Error(r.err, "shard's Lease is no longer this replica's", "why", r.taken)
			default:
				log.V(1).Info("cannot renew shard", "err", r.err)
			}
			if !taken {
				renewAt.Reset(f.o.RetryPeriod)
			}
		}
	}
	if renewing {
		if r := <-renewed; r.err == nil {
			lastSent = r.sent
		} else if r.taken != "" {
			taken = true
		}
	}
	if f.alive.Err() != nil { // killed meanwhile
		f.forget(h)
		return
	}
	returned := time.Now()
	if returned.After(lastSent.Add(f.o.LeaseDuration)) {
		log.Error(nil, "shard's work returned after its lease may have expired: another replica may have started it meanwhile",
			"workStopped", returned.Sub(stoppedAt), "lastRenewalSent", lastSent)
	}
	released := false
	if !taken && f.alive.Err() == nil {
		released = f.release(h)
	}
	f.forget(h)
	took := returned.Sub(stoppedAt).Round(time.Millisecond)
	if kind == Lost {
		log.V(1).Info("lost shard's work returned", "workStoppedIn", took, "leaseReleased", released)
		return
	}
	log.Info("released shard", "why", why, "workStoppedIn", took, "leaseReleased", released)
	f.o.Metrics.Handover(Released)
}

// renew writes the holding's record renewed now. If the Lease changed
// since this replica last wrote it, it reads it: still this replica's (a
// write whose answer was lost, or an edit by hand), it writes again;
// missing (deleted by hand), it creates it again, as client-go's
// LeaderElector does with its lock (the others count it as held
// meanwhile: see observation); another's, it is taken.
func (f *Fleet) renew(h *holding, timeout time.Duration) renewal {
	ctx, cancel := f.request(context.Background(), timeout)
	defer cancel()
	rec := h.rec
	for again := false; ; again = true {
		sent := time.Now()
		rec.RenewTime = metav1.NewTime(sent)
		err := h.lock.write(ctx, rec)
		if err == nil {
			h.rec = rec
			return renewal{sent: sent}
		}
		if again || !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) && !apierrors.IsAlreadyExists(err) {
			return renewal{err: err}
		}
		cur, _, gerr := h.lock.get(ctx)
		switch {
		case apierrors.IsNotFound(gerr):
			// Written again as it was.
		case gerr != nil:
			return renewal{err: gerr}
		case cur.HolderIdentity != f.o.Identity:
			return renewal{err: err, taken: fmt.Sprintf("its Lease names %q as the holder now", cur.HolderIdentity)}
		default:
			rec.AcquireTime, rec.LeaderTransitions = cur.AcquireTime, cur.LeaderTransitions
		}
	}
}

// release gives the shard's Lease up, as client-go's LeaderElector does:
// no holder, so that another replica may take it at once. It is called
// only once the shard's work has returned.
func (f *Fleet) release(h *holding) bool {
	ctx, cancel := f.request(context.Background(), f.o.RenewDeadline)
	defer cancel()
	if err := f.disown(ctx, h.lock); err != nil {
		f.log.Info("cannot release shard; it expires after LeaseDuration", "shard", h.shard, "err", err)
		return false
	}
	return true
}
