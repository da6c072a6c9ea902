package runtime

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// WithDriftCheck makes the Syncer compare its store with the server every d
// (jittered by ±10%), and repair what differs: a watch event lost on the
// way (a proxy, a bug, a server that skipped one) leaves the store, and the
// handlers, wrong until the object changes again, which a resync period
// (WithResyncPeriod) does not mend, since it re-delivers what the store
// holds. A check is a metadata-only LIST at exactly the resourceVersion the
// store is at (names, UIDs and resourceVersions, about a tenth of the
// objects' bytes, read between two watches: the watch is ended when a check
// is due and opened again from where it was), so that any difference is
// drift, never lag. What differs is repaired as if its events had come: an
// object the store lacks or holds in an older state is fetched (OnAdd,
// OnUpdate), one the server no longer holds is removed (OnDelete,
// DeletionInferred); each is counted by Metrics.DriftRepaired with its
// reason (ReasonDriftMissing, ReasonDriftStale, ReasonDriftGone) and logged.
// When fetching what differs would cost the server more than a full sync,
// the Syncer resyncs warm from its store instead (Metrics.Relisted with
// ReasonDrift), as after a 410 Gone. A lost event is found by the first
// check after the watch moved past it: a later event, or the server's
// bookmark (kube-apiserver sends one about every minute), which is also
// what a reopened watch of a quiet resource waits for: there, checks come
// at most about once a minute. Over 10,000 ConfigMaps a check took 30 to
// 80 ms. Default 0: never. A server that does not serve the metadata-only
// LIST turns the check off, logged.
func WithDriftCheck(d time.Duration) Option { return func(c *config) { c.driftEvery = d } }

// What a drift check found and repaired (Metrics.DriftRepaired), and why
// a watch ended or a resync began because of one.
const (
	// ReasonDriftMissing: the store lacked an object the server holds (a
	// lost ADDED event); fetched and delivered as OnAdd.
	ReasonDriftMissing Reason = "missing"
	// ReasonDriftStale: the store held an older state of an object (a lost
	// MODIFIED event, or a deletion and re-creation); fetched and
	// delivered as OnUpdate (OnDelete then OnAdd for another UID).
	ReasonDriftStale Reason = "stale"
	// ReasonDriftGone: the store held an object the server no longer holds
	// (a lost DELETED event); removed and delivered as OnDelete with
	// DeletionInferred.
	ReasonDriftGone Reason = "gone"
	// ReasonDriftCheck: the watch was ended for a drift check
	// (Metrics.Reconnected); it is opened again at once.
	ReasonDriftCheck Reason = "drift-check"
	// ReasonDrift: a drift check found more than fetching could repair
	// cheaply; a warm resync from the store follows (Metrics.Relisted).
	ReasonDrift Reason = "drift"
)

// driftState is when the next drift check is due. Owned by the Run goroutine.
type driftState struct {
	next time.Time // zero: none scheduled yet
	off  bool      // the server does not serve the metadata-only LIST
}

// driftIn returns how long the watch about to be read may run before a
// drift check is due, scheduling the first one; ok is false when none is
// to come (no drift check, or a warm start catching up).
func (s *Syncer[T]) driftIn() (d time.Duration, ok bool) {
	if s.cfg.driftEvery <= 0 || s.drift.off || s.warm != nil {
		return 0, false
	}
	if s.drift.next.IsZero() {
		s.drift.next = time.Now().Add(jittered(s.cfg.driftEvery))
	}
	return max(time.Until(s.drift.next), 0), true
}

// checkDrift runs a drift check, if one is due, between two watches: the
// store is then the state at s.rv, so a metadata-only LIST at exactly s.rv
// must match it. Objects stored at a newer resourceVersion than s.rv (a
// write the program made and stored) are not drift. A check that fails is
// reported, and tried again one period later.
func (s *Syncer[T]) checkDrift(ctx context.Context) {
	if s.cfg.driftEvery <= 0 || s.drift.off {
		return
	}
	now := time.Now()
	if s.drift.next.IsZero() || now.Before(s.drift.next) {
		s.driftIn()
		return
	}
	// Whatever happens now, the next check is a period away. A resync due
	// or under way brings the store in step by itself.
	s.drift.next = now.Add(jittered(s.cfg.driftEvery))
	if s.rv == "" || s.warm != nil || !s.cache.settled(s.part) {
		return
	}
	at := s.rv
	log := s.cfg.logger.WithValues("resource", s.res.String())
	var items []listed
	_, err := s.listMetadata(ctx, at, func(page []listed) { items = append(items, page...) })
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return
	case metadataRefused(err):
		s.drift.off = true
		log.Info("drift check off: the server does not serve the metadata-only LIST", "err", err.Error())
		return
	case isExpired(err): // the store's resourceVersion is compacted already: next time
		log.V(1).Info("drift check skipped: the store's resourceVersion is no longer served", "resourceVersion", at)
		return
	default:
		s.report(&SyncError{Kind: Classify(err), Resource: s.res.String(), Op: "drift-check", Err: err})
		return
	}
	store := s.cache.store
	var missing, stale []Key
	held := map[Key]driftHeld[T]{} // what the store holds of the stale objects
	present := 0                   // listed objects the store holds
	for _, m := range items {
		e, ok := store.get(m.key)
		if ok {
			present++
		}
		switch {
		case ok && e.obj.GetUID() == m.uid && e.obj.GetResourceVersion() == m.rv,
			ok && compareRV(e.obj.GetResourceVersion(), at) > 0, // stored since
			s.bad[m.key] == m.rv: // a version that does not decode: the store keeps the last that did
		case ok:
			stale = append(stale, m.key)
			held[m.key] = driftHeld[T]{e.obj, m.uid}
		default:
			missing = append(missing, m.key)
		}
	}
	var gone []T
	if objs := s.cache.objectsOfPart(s.part); len(objs) > present { // what this loop keeps: its part's, for a Syncer of several
		listed := make(map[Key]struct{}, len(items))
		for _, m := range items {
			listed[m.key] = struct{}{}
		}
		for _, o := range objs {
			if _, ok := listed[KeyOf(o)]; !ok && compareRV(o.GetResourceVersion(), at) <= 0 {
				gone = append(gone, o)
			}
		}
	}
	if len(missing)+len(stale)+len(gone) == 0 {
		log.V(2).Info("drift check: the store matches the server", "resourceVersion", at, "objects", len(items),
			"took", time.Since(now).Round(time.Millisecond))
		return
	}
	log.Info("drift check: the store differs from the server; repairing", "resourceVersion", at,
		"missing", len(missing), "stale", len(stale), "gone", len(gone))
	if fetchCostsMore(len(missing)+len(stale), len(items)) {
		log.Info("drift check: fetching what differs would cost the server more than a full sync; resyncing warm from the store")
		s.rv, s.fromStore, s.due = "", !s.noMeta, ReasonDrift
		return
	}
	for _, o := range gone {
		if s.cache.gone(o) {
			s.cfg.metrics.DriftRepaired(ReasonDriftGone)
		}
	}
	// Fetched in a state not older than at, and stored (older events of
	// the watch from at are then dropped). One not found was deleted
	// after at: the watch delivers that, from the state the store holds,
	// unless the store holds another object of its name (another UID).
	pending, err := s.fetch(ctx, append(missing, stale...), at)
	for _, k := range missing {
		if _, ok := store.get(k); ok {
			s.cfg.metrics.DriftRepaired(ReasonDriftMissing)
		}
	}
	for _, k := range stale {
		h := held[k]
		e, ok := store.get(k)
		switch want, fetched := pending[k]; {
		case ok && e.obj.GetResourceVersion() != h.obj.GetResourceVersion():
			s.cfg.metrics.DriftRepaired(ReasonDriftStale)
		case fetched && want == "" && h.obj.GetUID() != h.listed && s.cache.gone(h.obj):
			s.cfg.metrics.DriftRepaired(ReasonDriftGone)
		}
	}
	if err != nil && ctx.Err() == nil {
		s.report(&SyncError{Kind: Classify(err), Resource: s.res.String(), Op: "drift-check", Err: err})
	}
}

// driftHeld is what the store holds of an object a drift check found
// stale, and the UID the server listed it with.
type driftHeld[T Object] struct {
	obj    T
	listed types.UID
}

// gone removes obj's object from the store if the store still holds that
// state of it, and tells handlers it is gone (OnDelete, DeletionInferred).
func (c *cache[T]) gone(obj T) bool {
	k := KeyOf(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.store.get(k); !ok || e.obj.GetResourceVersion() != obj.GetResourceVersion() {
		return false
	}
	old, _, n := c.store.remove(k)
	c.notify(k, old, true, old, true, DeletionInferred)
	c.stored(n)
	return true
}
