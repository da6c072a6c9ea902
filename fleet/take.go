package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	rl "k8s.io/client-go/tools/leaderelection/resourcelock"
)

// acquire tries to take shard: it reads its Lease and writes this replica
// as the holder if the Lease is free as this replica observed it (no
// holder, an expired one, or missing for as long as a lease), or already
// names this replica. The write is conditional on what was read, so of
// replicas racing for a shard one wins. A write whose answer was lost, or
// came as Run's context ended, is made sure of (settle) before anything
// else: the shard is held only if the Lease names this replica, and not
// at all once Run's context has ended.
func (f *Fleet) acquire(ctx context.Context, work Work, shard, q, members int) bool {
	name := shardLeaseName(f.o.Name, shard)
	lock := f.newLock(name, roleShard)
	rctx, cancel := f.request(ctx, f.requestTimeout())
	defer cancel()
	old, _, err := lock.get(rctx)
	if err != nil && !apierrors.IsNotFound(err) {
		f.log.V(1).Info("cannot read a shard's Lease", "shard", shard, "err", err)
		return false
	}
	now := time.Now()
	o := f.seeShard(shard, lock.lease, now)
	var (
		from Takeover
		why  string
	)
	switch {
	case !o.exists():
		if !o.free(now) {
			return false
		}
		why = fmt.Sprintf("its Lease has been missing for %s", now.Sub(o.missing).Round(time.Millisecond))
	case old.HolderIdentity == f.o.Identity:
		why = "its Lease names this replica already (a take whose answer was lost, a release that failed, or an earlier run)"
	case old.HolderIdentity == "":
		from, why = FromRelease, fmt.Sprintf("free: released, observed %s ago", now.Sub(o.since).Round(time.Millisecond))
	case o.expired(now):
		from, why = FromExpiry, fmt.Sprintf("expired: %s's last renewal observed %s ago, its lease is %s",
			old.HolderIdentity, now.Sub(o.since).Round(time.Millisecond), o.valid)
	default:
		return false
	}
	transitions := old.LeaderTransitions
	if old.HolderIdentity != f.o.Identity {
		transitions++
	}
	sent := time.Now()
	rec := f.record(sent, sent, transitions)
	err = lock.write(rctx, rec)
	if err != nil && refused(err) {
		f.log.V(1).Info("cannot take a shard", "shard", shard, "err", err)
		return false
	}
	if (err != nil || ctx.Err() != nil) && !f.settle(ctx, shard, lock, rec, err) {
		return false
	}
	delete(f.unsure, shard)
	if from != "" {
		took := time.Since(o.since)
		f.o.Metrics.TookOver(from, took)
		why += fmt.Sprintf("; taken over %s after", took.Round(time.Millisecond))
	}
	n := f.startHolding(ctx, work, shard, lock, rec, sent)
	f.log.Info("acquired shard", "shard", shard, "why", why, "quota", q, "members", members, "held", n)
	f.o.Metrics.Handover(Acquired)
	return true
}

// settle makes sure of the outcome of the take of shard whose answer was
// lost (lost), or came as Run's context ended, and reports whether the
// shard is this replica's to hold. Its requests have contexts of their own:
// Run's may have ended.
//
// Running, it sends the take again, conditional on the same version: if
// the first landed, the second fails and a read shows the Lease names this
// replica; if not, the second takes the shard, and the first can no longer
// land. Stopping, it writes a release the same way (disown), so that the
// Lease does not name this replica, whatever became of the take. A take
// still unsure (the server answered neither the second take nor, after
// its conflict, the read) is noted in f.unsure: the next look tells
// whether it landed, and leave releases it.
func (f *Fleet) settle(ctx context.Context, shard int, lock *leaseLock, rec rl.LeaderElectionRecord, lost error) bool {
	if ctx.Err() != nil {
		dctx, cancel := f.request(context.Background(), f.o.RenewDeadline)
		defer cancel()
		if err := f.disown(dctx, lock); err != nil {
			f.unsure[shard] = lock
			f.log.Info("stopping as a shard's take was in flight: cannot make sure its Lease does not name this replica",
				"shard", shard, "err", err)
			return false
		}
		f.log.V(1).Info("stopping as a shard's take was in flight: its Lease released", "shard", shard, "answer", lost)
		return false
	}
	sctx, cancel := f.request(context.Background(), f.requestTimeout())
	defer cancel()
	err := lock.write(sctx, rec)
	if err == nil {
		f.log.V(1).Info("a shard's take lost its answer; taken by sending it again", "shard", shard, "answer", lost)
		return true
	}
	if !refused(err) {
		f.unsure[shard] = lock
		f.log.V(1).Info("a shard's take lost its answer, and so did the second", "shard", shard, "answer", lost, "err", err)
		return false
	}
	// The Lease changed since it was read: the first take landed, or
	// another replica wrote it.
	cur, _, err := lock.get(sctx)
	switch {
	case err == nil && cur.HolderIdentity == f.o.Identity:
		f.log.V(1).Info("a shard's take lost its answer; it had landed", "shard", shard, "answer", lost)
		return true
	case err != nil && !apierrors.IsNotFound(err):
		// The read that tells got no answer: the Lease may name this
		// replica. lock still holds the version the take was conditional
		// on, so the next look forgets it if that changed (then a Lease
		// that names this replica shows in f.ours), and leave releases it.
		f.unsure[shard] = lock
		f.log.V(1).Info("a shard's take lost its answer, and so did the read that would tell whether it landed",
			"shard", shard, "answer", lost, "err", err)
	}
	return false
}

// forgetSettled forgets the unsure takes that can no longer land: the
// Lease they were conditional on has changed (or, for a create, exists).
// Landed, they show as Leases that name this replica (f.ours).
func (f *Fleet) forgetSettled(v view) {
	for s, lock := range f.unsure {
		o := v.shards[s]
		if lock.lease == nil && o.exists() || lock.lease != nil && (!o.exists() || o.version != lock.lease.ResourceVersion) {
			delete(f.unsure, s)
		}
	}
}

// giveUp releases shard's Lease, which named this replica at the last look
// while it does not hold it.
func (f *Fleet) giveUp(ctx context.Context, shard int) {
	if f.holds(shard) {
		return
	}
	rctx, cancel := f.request(ctx, f.requestTimeout())
	defer cancel()
	lock := f.newLock(shardLeaseName(f.o.Name, shard), roleShard)
	if cur, _, err := lock.get(rctx); err != nil || cur.HolderIdentity != f.o.Identity {
		return
	}
	if err := f.disown(rctx, lock); err != nil {
		f.log.V(1).Info("cannot release a shard's Lease that names this replica", "shard", shard, "err", err)
		return
	}
	f.log.V(1).Info("released a shard's Lease that named this replica while it did not hold it", "shard", shard)
}

// disown makes sure the Lease of lock does not name this replica, once
// whatever this replica did with it is over. It writes a release (no
// holder, as client-go's LeaderElector releases) over the version lock
// last read or wrote, or creates the Lease released if it was missing, so
// that a write of this replica's still in flight over that version can no
// longer land. If the Lease changed since, it reads it and, while it names
// this replica, releases it again; when an answer is lost, it reads the
// Lease and goes on until ctx ends. It returns nil once the Lease does not
// name this replica (released, another's, or missing).
func (f *Fleet) disown(ctx context.Context, lock *leaseLock) error {
	cur := rl.LeaderElectionRecord{}
	if lock.lease != nil {
		cur = *rl.LeaseSpecToLeaderElectionRecord(&lock.lease.Spec)
	}
	backoff := time.NewTimer(0)
	defer backoff.Stop()
	for {
		err := lock.write(ctx, releaseRecord(cur, time.Now()))
		if err == nil {
			return nil
		}
		for {
			if !apierrors.IsConflict(err) && !apierrors.IsAlreadyExists(err) && !apierrors.IsNotFound(err) {
				// No answer, or one that says nothing of the Lease: wait
				// a little before asking again.
				backoff.Reset(f.o.RetryPeriod / 4)
				select {
				case <-ctx.Done():
					return errors.Join(err, context.Cause(ctx))
				case <-backoff.C:
				}
			}
			cur, _, err = lock.get(ctx)
			if err == nil || apierrors.IsNotFound(err) {
				break
			}
		}
		if err != nil || cur.HolderIdentity != f.o.Identity {
			return nil // missing, or not this replica's
		}
	}
}

// refused reports whether err is the server's refusal of a write (a 4xx
// status: a conflict, the Lease exists or is missing, too many requests):
// the write did not land. Any other error (the request cancelled, timed
// out or cut off, a 5xx such as a timeout the storage may complete yet)
// leaves its outcome unknown: its answer was lost.
func refused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	code := status.Status().Code
	return code >= 400 && code < 500
}
