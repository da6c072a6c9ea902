package runtime

import (
	"time"

	"github.com/syncer-gen/syncer-gen/runtime/internal/handlerqueue"
)

// part is the sync state of the objects that one sync loop keeps: every
// object of the Syncer, or, for a Syncer over several namespaces
// (WithNamespaces), one namespace's, or, for a Syncer over names
// (WithNames), the one object of a name. Each part has its own resync epoch,
// so that a resync of one namespace sweeps only that namespace's objects,
// and its own resourceVersion, which a snapshot of its objects names.
// Its fields are guarded by the cache's mutex.
type part struct {
	ns       string // the namespace, unless all
	name     string // the name, for a part of a Syncer over names
	all      bool   // every object of the Syncer
	epoch    uint64 // the epoch of its resync under way, or of its last
	inResync bool
	synced   bool   // it has completed a resync
	live     bool   // its resync under way applies live events now, not its list (see listing)
	rv       string // the resourceVersion its objects are at, outside a resync
	// resyncFrom is rv when its resync under way began: what
	// LastSyncResourceVersion tells meanwhile.
	resyncFrom string
	// refused is the error of a name the server refuses to list or watch
	// (WithNames): such a part does not hold the Syncer's sync back. nil
	// once it syncs.
	refused *NameError
}

// holds tells whether the object of key k belongs to p.
func (p *part) holds(k Key) bool {
	return p.all || k.Namespace == p.ns && (p.name == "" || k.Name == p.name)
}

// key is p's key among the cache's parts.
func (p *part) key() Key { return Key{Namespace: p.ns, Name: p.name} }

// partOf returns the part that keeps the object of key k, nil when the
// Syncer does not cover it. c.mu is held.
func (c *cache[T]) partOf(k Key) *part {
	switch {
	case c.parts == nil:
		return c.whole
	case c.named:
		return c.parts[k]
	}
	return c.parts[Key{Namespace: k.Namespace}]
}

// objectsOf returns the objects p keeps. c.mu is held.
func (c *cache[T]) objectsOf(p *part) []T {
	switch {
	case p.all:
		return c.store.List()
	case p.name != "":
		if o, ok := c.store.Get(p.ns, p.name); ok {
			return []T{o}
		}
		return nil
	}
	return c.store.InNamespace(p.ns)
}

// objectsOfPart is objectsOf, c.mu not held.
func (c *cache[T]) objectsOfPart(p *part) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.objectsOf(p)
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
		if p.inResync || !p.synced && p.refused == nil {
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

// addPart makes the part of k (a namespace's, Name "", or a name's), not
// synced: the cache is not settled until it is.
func (c *cache[T]) addPart(k Key) *part {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.parts == nil {
		c.parts = map[Key]*part{}
	}
	p := &part{ns: k.Namespace, name: k.Name}
	c.parts[k] = p
	c.countNames()
	return p
}

// removePart forgets the part of k: its objects leave the store, and
// handlers are told they are gone (OnDelete, inferred: the Syncer no
// longer watches them), as are its objects a snapshot owed them.
func (c *cache[T]) removePart(k Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[k]
	if p == nil {
		return
	}
	delete(c.parts, k)
	c.countNames()
	var gone []T
	var n int
	if p.name != "" {
		gone, n = c.store.sweepOne(k, ^uint64(0))
	} else {
		gone, n = c.store.removeNamespace(p.ns)
	}
	for _, o := range gone {
		c.notify(KeyOf(o), o, true, o, true, DeletionInferred)
	}
	for k, o := range c.owed {
		if p.holds(k) {
			c.notify(k, o, true, o, true, DeletionInferred)
			delete(c.owed, k)
		}
	}
	c.stored(n)
	c.settle(false)
	c.wake()
}

// known ends the wait for the first set of namespaces; a Syncer over
// names with none has synced.
func (c *cache[T]) known() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting || c.named && len(c.parts) == 0 {
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
	if c.named { // a reader asks of each name: see Syncer.WaitForName
		return true, c.synced.Load()
	}
	p := c.parts[Key{Namespace: ns}]
	return p != nil, p != nil && p.synced
}
