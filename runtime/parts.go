package runtime

import (
	"time"

	"github.com/syncer-gen/syncer-gen/runtime/internal/handlerqueue"
)

// part is the sync state of the objects that one sync loop keeps: every
// object of the Syncer, or, for a Syncer over several namespaces
// (WithNamespaces), one namespace's. Each part has its own resync epoch,
// so that a resync of one namespace sweeps only that namespace's objects,
// and its own resourceVersion, which a snapshot of its objects names.
// Its fields are guarded by the cache's mutex.
type part struct {
	ns       string // the namespace, unless all
	all      bool   // every object of the Syncer
	epoch    uint64 // the epoch of its resync under way, or of its last
	inResync bool
	synced   bool   // it has completed a resync
	live     bool   // its resync under way applies live events now, not its list (see listing)
	rv       string // the resourceVersion its objects are at, outside a resync
	// resyncFrom is rv when its resync under way began: what
	// LastSyncResourceVersion tells meanwhile.
	resyncFrom string
}

// partOf returns the part that keeps objects of namespace ns, nil when
// the Syncer does not cover ns. c.mu is held.
func (c *cache[T]) partOf(ns string) *part {
	if c.parts == nil {
		return c.whole
	}
	return c.parts[ns]
}

// settle ends the handlers' resync once no part is in one, and marks the
// cache synced once every part has synced: OnSync. finished says that a
// part finished a resync; otherwise (a part removed, the first set of
// namespaces given) OnSync is queued only if a resync was under way or
// the cache had not synced. c.mu is held.
func (c *cache[T]) settle(finished bool) {
	if c.waiting {
		return
	}
	for _, p := range c.parts {
		if p.inResync || !p.synced {
			return
		}
	}
	if !finished && !c.inResync && c.synced.Load() {
		return
	}
	c.inResync = false
	if !c.synced.Swap(true) {
		close(c.syncedCh)
	}
	now := time.Now()
	for _, d := range c.handlers {
		d.q.Barrier(handlerqueue.Synced, now)
	}
}

// addPart makes the part of namespace ns, not synced: the cache is not
// settled until it is.
func (c *cache[T]) addPart(ns string) *part {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.parts == nil {
		c.parts = map[string]*part{}
	}
	p := &part{ns: ns}
	c.parts[ns] = p
	return p
}

// removePart forgets the part of namespace ns: its objects leave the
// store, and handlers are told they are gone (OnDelete, inferred: the
// Syncer no longer watches them), as are the objects of ns a snapshot
// owed them.
func (c *cache[T]) removePart(ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.parts, ns)
	gone, n := c.store.removeNamespace(ns)
	for _, o := range gone {
		c.notify(KeyOf(o), o, true, o, true, DeletionInferred)
	}
	for k, o := range c.owed {
		if k.Namespace == ns {
			c.notify(k, o, true, o, true, DeletionInferred)
			delete(c.owed, k)
		}
	}
	c.stored(n)
	c.settle(false)
}

// known ends the wait for the first set of namespaces.
func (c *cache[T]) known() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting {
		c.waiting = false
		c.settle(false)
	}
}

// partSynced tells whether the Syncer covers namespace ns and whether its
// objects have synced; ns "" asks for every namespace it covers. While it
// waits for its first set, it may cover any: not synced.
func (c *cache[T]) partSynced(ns string) (covered, synced bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting {
		return true, false
	}
	if ns == "" {
		all := c.synced.Load()
		for _, p := range c.parts {
			all = all && p.synced
		}
		return true, all
	}
	p := c.parts[ns]
	return p != nil, p != nil && p.synced
}
