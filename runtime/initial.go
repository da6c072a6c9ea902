package runtime

// InitialAdder is implemented by a Handler that tells the objects of an
// initial list from objects created while the Syncer watched: it gets
// OnInitialAdd, in place of OnAdd, for an object it is told of because a
// resync listed it (the first sync, a resync after a 410 Gone, a warm
// start's objects restored from the snapshot or fetched to catch up), or
// because it was stored already when the handler was added; and OnAdd
// only for an object a live event brought. A live change of an object
// whose add is still waiting for the handler makes that add live. This is
// client-go's isInInitialList and controller-runtime's IsInInitialList:
// queue.Enqueue and ctrlsyncer.Source give such adds a lower priority, so
// that after a restart a live change is not reconciled behind every
// stored object.
type InitialAdder[T Object] interface {
	OnInitialAdd(obj T)
}

var _ InitialAdder[Object] = HandlerFuncs[Object]{}

// OnInitialAdd implements InitialAdder: InitialAddFunc, or AddFunc if it
// is nil.
func (f HandlerFuncs[T]) OnInitialAdd(obj T) {
	if f.InitialAddFunc != nil {
		f.InitialAddFunc(obj)
		return
	}
	f.OnAdd(obj)
}

// add delivers an add, as OnInitialAdd when it comes from a list and the
// handler tells those apart.
func (d *dispatcher[T]) add(obj T, listed bool) {
	if listed && d.initial != nil {
		d.initial.OnInitialAdd(obj)
		return
	}
	d.h.OnAdd(obj)
}

// listing tells whether a change of the object of key k applied now
// comes from a list rather than a live event: during its part's resync,
// until that watches live events (goLive), and, for a Driver, before the
// first sync. c.mu is held.
func (c *cache[T]) listing(k Key) bool {
	p := c.partOf(k)
	return p != nil && !p.live && (p.inResync || !p.synced)
}

// goLive notes that p's resync under way applies live events from now on:
// a warm resync's watch once it fetched what changed, or a WatchList stream
// that showed its initial events are over. The next resync lists again.
func (c *cache[T]) goLive(p *part) {
	c.mu.Lock()
	p.live = true
	c.mu.Unlock()
}
