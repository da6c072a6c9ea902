package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// What a Syncer's store has observed, and waiting for it: the ground under
// read-your-own-writes (Writes). A wait is a condition on the store tested
// under the cache's lock each time the store observes something (an event,
// a bookmark, the end of a resync), never polled.

// LastSyncResourceVersion returns the resourceVersion of the server's
// state the store holds: the last event or bookmark applied, or the
// snapshot a resync ended at. While a resync is under way the store is not
// a state of the server, and this is the resourceVersion it had before;
// "" before the first sync ends. client-go's informers tell the same
// (LastSyncResourceVersion).
func (s *Syncer[T]) LastSyncResourceVersion() string { return s.cache.observedRV() }

// WaitForResourceVersion blocks until the store holds the server's state
// at rv or later: synced, no resync under way, and every event up to rv
// applied. It returns ctx's error when ctx ends first. Where rv or the
// server's resourceVersions are not integers (KEP-5504: only those compare;
// every etcd-backed server gives them) it returns nil at once, and the wait
// is counted as failed open (Metrics.ReadWaited), as client-go and
// controller-runtime do.
func (s *Syncer[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	return s.await(ctx, WaitOpVersion, nil, func() (bool, error) { return s.cache.reached(rv) },
		func() *StaleReadError { return &StaleReadError{ResourceVersion: rv} })
}

// WaitForObject blocks until the store holds the object of k at rv or
// later, or has observed rv without it (deleted, or out of the Syncer's
// selection since). rv is typically what the server answered to a write of
// the object. ctx bounds the wait; resourceVersions that do not compare
// fail open, as for WaitForResourceVersion.
func (s *Syncer[T]) WaitForObject(ctx context.Context, k Key, rv string) error {
	return s.await(ctx, WaitOpObject, nil, func() (bool, error) { return s.cache.objectAt(k, rv) },
		func() *StaleReadError { return &StaleReadError{Key: k, ResourceVersion: rv} })
}

// WaitForDeletion blocks until the store no longer holds the object of k
// whose UID is uid: it is gone, another object (another UID) holds its
// name, or it is marked for deletion and kept there for now (finalizers,
// or a grace period: the server keeps it, with its deletionTimestamp set,
// until they are done). A mark without either (a Pod with no node is
// marked, then deleted) is waited past, until the object is gone. ctx
// bounds the wait. A Writes' deletion waits also until the store has seen
// the object come (Writes.Deleted).
func (s *Syncer[T]) WaitForDeletion(ctx context.Context, k Key, uid types.UID) error {
	return s.await(ctx, WaitOpDeletion, nil, func() (bool, error) { return s.cache.deletionSeen(k, uid, "") },
		func() *StaleReadError { return &StaleReadError{Key: k, UID: uid} })
}

// WaitOp names what a wait was for, in Metrics.ReadWaited.
type WaitOp string

// The waits of a Syncer, and those of Writes.
const (
	WaitOpVersion  WaitOp = "resource-version" // WaitForResourceVersion
	WaitOpObject   WaitOp = "object"           // WaitForObject
	WaitOpDeletion WaitOp = "deletion"         // WaitForDeletion
	WaitOpGet      WaitOp = "get"              // Writes.WaitForGet: a read of one object
	WaitOpList     WaitOp = "list"             // Writes.WaitForList: a read of a selection
)

// WaitResult tells how a wait ended, in Metrics.ReadWaited.
type WaitResult string

// How a wait ends.
const (
	// WaitObserved: the store has seen what was waited for (at once when
	// there was nothing to wait for).
	WaitObserved WaitResult = "observed"
	// WaitFailedOpen: resourceVersions that do not compare; the wait
	// returned at once.
	WaitFailedOpen WaitResult = "fail-open"
	// WaitTimedOut: past the limit of Writes (NewWrites); the read failed
	// with a *StaleReadError.
	WaitTimedOut WaitResult = "timeout"
	// WaitCancelled: the caller's context ended first.
	WaitCancelled WaitResult = "cancelled"
)

// StaleReadError is what a read of Writes returns when the store has not
// seen a write of the program within the wait limit: the store is behind
// the server by more than the limit (a slow watch, a resync under way). A
// controller returns it from its reconcile, and the key comes back later.
type StaleReadError struct {
	// Resource names the resource, e.g. "configmaps/v1".
	Resource string
	// Key is the object waited for.
	Key Key
	// ResourceVersion is what the store was to reach for it ("" for a
	// deletion).
	ResourceVersion string
	// UID is the deleted object waited for ("" but for a deletion).
	UID types.UID
	// Waited is how long the read waited.
	Waited time.Duration
	// StoreAt is the store's LastSyncResourceVersion when the read gave up.
	StoreAt string
}

func (e *StaleReadError) Error() string {
	what := "resourceVersion " + e.ResourceVersion
	if e.ResourceVersion == "" {
		what = fmt.Sprintf("the deletion of uid %s", e.UID)
	}
	obj := e.Key.String()
	if obj == "" {
		obj = "the store"
	}
	at := e.StoreAt
	if at == "" {
		at = "none yet"
	}
	return fmt.Sprintf("runtime: %s %s: the store has not seen %s after %s (the store is at resourceVersion %s); read again later",
		e.Resource, obj, what, e.Waited.Round(time.Millisecond), at)
}

// await blocks until met says the condition holds. met is called under
// the cache's lock, at once and after each change the store observes; an
// error from it (resourceVersions that do not compare) ends the wait at
// once, failed open. limit, when it is not nil, ends the wait with the
// error stale makes.
func (s *Syncer[T]) await(ctx context.Context, op WaitOp, limit <-chan time.Time, met func() (bool, error), stale func() *StaleReadError) error {
	start := time.Now()
	result, err := s.waitLoop(ctx, limit, met)
	waited := time.Since(start)
	s.cfg.metrics.ReadWaited(op, result, waited)
	if result == WaitTimedOut {
		e := stale()
		e.Resource, e.Waited, e.StoreAt = s.res.String(), waited, s.cache.observedRV()
		return e
	}
	return err
}

func (s *Syncer[T]) waitLoop(ctx context.Context, limit <-chan time.Time, met func() (bool, error)) (WaitResult, error) {
	for {
		changed, ok, err := s.cache.check(met)
		switch {
		case err != nil:
			return WaitFailedOpen, nil
		case ok:
			return WaitObserved, nil
		}
		select {
		case <-changed:
		case <-limit:
			return WaitTimedOut, nil
		case <-ctx.Done():
			return WaitCancelled, ctx.Err()
		}
	}
}

// errIncomparable ends a wait failed open.
var errIncomparable = errors.New("resourceVersions do not compare")

// compareVersions compares two resourceVersions as apimachinery does
// (KEP-5504): -1, 0 or 1, or errIncomparable where either is not a
// well-formed integer.
func compareVersions(a, b string) (int, error) {
	c, err := resourceversion.CompareResourceVersion(a, b)
	if err != nil {
		return 0, errIncomparable
	}
	return c, nil
}

// check calls met under c.mu and, when it does not hold, returns the
// channel closed at the next change the store observes.
func (c *cache[T]) check(met func() (bool, error)) (changed <-chan struct{}, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok, err = met(); ok || err != nil {
		return nil, ok, err
	}
	if c.woken == nil {
		c.woken = make(chan struct{})
	}
	return c.woken, false, nil
}

// wake tells waiters that the store observed something. c.mu is held.
func (c *cache[T]) wake() {
	if c.woken != nil {
		close(c.woken)
		c.woken = nil
	}
}

// observedRV returns the resourceVersion of the state the store last
// settled at (see Syncer.LastSyncResourceVersion): over several
// namespaces, the oldest of theirs.
func (c *cache[T]) observedRV() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := ""
	for i, p := range c.allParts() {
		rv := p.rv
		if p.inResync || !p.synced {
			rv = p.resyncFrom
		}
		if rv == "" {
			return ""
		}
		if i == 0 || compareRV(rv, out) < 0 {
			out = rv
		}
	}
	return out
}

// allParts returns the parts of the Syncer: its namespaces', its names'
// but those the server refuses, or the one of all its objects. c.mu is
// held.
func (c *cache[T]) allParts() []*part {
	if c.parts == nil {
		return []*part{c.whole}
	}
	out := make([]*part, 0, len(c.parts))
	for _, p := range c.parts {
		if p.refused == nil { // a name the server refuses holds nothing (WithNames)
			out = append(out, p)
		}
	}
	return out
}

// lastRV returns the resourceVersion of the last event the whole part
// applied (a Driver's).
func (c *cache[T]) lastRV() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.whole.rv
}

// reached tells whether every part of the store holds the server's state
// at rv or later. c.mu is held.
func (c *cache[T]) reached(rv string) (bool, error) {
	if c.waiting {
		return false, nil
	}
	for _, p := range c.allParts() {
		if ok, err := p.reached(rv); !ok || err != nil {
			return ok, err
		}
	}
	return true, nil
}

// reached tells whether p holds the server's state at rv or later: synced,
// no resync under way, every event up to rv applied.
func (p *part) reached(rv string) (bool, error) {
	if !p.synced || p.inResync {
		if _, err := compareVersions(rv, rv); err != nil {
			return false, err // rv itself will never compare: no use waiting
		}
		return false, nil
	}
	cmp, err := compareVersions(p.rv, rv)
	return cmp >= 0, err
}

// objectAt tells whether the store holds the object of k at rv or later,
// or the part of k's namespace holds the server's state at rv or later
// (without it, or with it older: it left the selection). An object of a
// namespace the Syncer does not cover is never stored: met. c.mu is held.
func (c *cache[T]) objectAt(k Key, rv string) (bool, error) {
	if e, ok := c.store.get(k); ok {
		switch cmp, err := compareVersions(e.obj.GetResourceVersion(), rv); {
		case err != nil:
			return false, err
		case cmp >= 0:
			return true, nil
		}
	}
	p := c.partOf(k)
	if p == nil {
		return !c.waiting, nil
	}
	return p.reached(rv)
}

// deletionSeen tells whether the store has seen the deletion of the
// object of k with uid (see Writes.Deleted): another UID holds its name;
// or it is marked for deletion and kept (finalizers, or a grace period);
// or it is gone, and the part of its namespace has synced and, where
// known is not "", reached known, the last resourceVersion of the object
// the program knew (else a store that has not yet seen the object would
// count its deletion as seen). c.mu is held.
func (c *cache[T]) deletionSeen(k Key, uid types.UID, known string) (bool, error) {
	if e, ok := c.store.get(k); ok {
		o := e.obj
		return o.GetUID() != uid || o.GetDeletionTimestamp() != nil && keptForNow(o), nil
	}
	p := c.partOf(k)
	if p == nil {
		return !c.waiting, nil
	}
	if known == "" {
		return p.synced, nil
	}
	return p.reached(known)
}

// keptForNow tells whether o, marked for deletion, stays on the server for
// a while: finalizers hold it, or a grace period (a Pod on a node, until
// its kubelet is done). The server answers the DELETE of such an object
// with the object. One marked without either (a Pod with no node) is
// deleted next.
func keptForNow(o Object) bool {
	if len(o.GetFinalizers()) > 0 {
		return true
	}
	g := o.GetDeletionGracePeriodSeconds()
	return g != nil && *g > 0
}
