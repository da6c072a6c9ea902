package runtime

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// cache applies events to a Store and fans them out to handlers. It holds
// the resync epoch and knows nothing of where events come from: the Syncer
// feeds it from a server, a Driver from a test.
type cache[T Object] struct {
	mu         sync.Mutex // serialises event application and handler changes
	store      *Store[T]
	handlers   []*registration[T]
	epoch      uint64
	inResync   bool
	synced     atomic.Bool
	syncedCh   chan struct{} // closed at the first OnSync
	transforms []func(any) any
}

type registration[T Object] struct{ h Handler[T] }

func newCache[T Object](c *config) *cache[T] {
	return &cache[T]{
		store:      newStore[T](c.indexes),
		syncedCh:   make(chan struct{}),
		transforms: c.transforms,
	}
}

// addHandler registers h. It first hands h the current state (OnAdd for each
// stored object, then OnSync if synced), then live events.
func (c *cache[T]) addHandler(h Handler[T]) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inResync {
		h.OnResyncStarted()
	}
	for _, o := range c.store.List() {
		h.OnAdd(o)
	}
	if c.synced.Load() && !c.inResync {
		h.OnSync()
	}
	r := &registration[T]{h: h}
	c.handlers = append(c.handlers, r)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.handlers {
			if x == r {
				c.handlers = append(c.handlers[:i:i], c.handlers[i+1:]...)
				return
			}
		}
	}
}

// beginResync starts a new epoch: objects not seen again before
// finishResync are deleted then.
func (c *cache[T]) beginResync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.inResync = true
	for _, r := range c.handlers {
		r.h.OnResyncStarted()
	}
}

// upsert applies an added or modified object. An object already stored with
// the same resourceVersion is only marked as seen; one older than the stored
// state is dropped, so that per object events stay in resourceVersion order.
func (c *cache[T]) upsert(obj T) {
	rv := obj.GetResourceVersion()
	obj = c.transform(obj)
	k := KeyOf(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := c.store.get(k)
	if ok {
		if cmp := compareRV(old.obj.GetResourceVersion(), rv); cmp >= 0 {
			c.store.mark(k, c.epoch)
			return
		}
	}
	c.store.put(k, obj, c.epoch)
	for _, r := range c.handlers {
		if ok {
			r.h.OnUpdate(old.obj, obj)
		} else {
			r.h.OnAdd(obj)
		}
	}
}

// delete applies a deleted object; handlers get obj, the final state.
func (c *cache[T]) delete(obj T) {
	obj = c.transform(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.store.remove(KeyOf(obj)); !ok {
		return
	}
	for _, r := range c.handlers {
		r.h.OnDelete(obj)
	}
}

// finishResync deletes what the resync did not see, marks the cache synced
// and calls OnSync.
func (c *cache[T]) finishResync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range c.store.sweep(c.epoch) {
		for _, r := range c.handlers {
			r.h.OnDelete(o)
		}
	}
	c.inResync = false
	if !c.synced.Swap(true) {
		close(c.syncedCh)
	}
	for _, r := range c.handlers {
		r.h.OnSync()
	}
}

// fail reports err to every handler.
func (c *cache[T]) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.handlers {
		r.h.OnError(err)
	}
}

func (c *cache[T]) transform(obj T) T {
	for _, f := range c.transforms {
		obj = f(obj).(T)
	}
	return obj
}

// compareRV compares two resourceVersions: -1 if a is older than b, 0 if
// equal, 1 if newer. resourceVersions are opaque to clients; where both
// parse as integers (as every etcd-backed server gives) they are compared
// as such, otherwise only equality is known and a differing b counts as newer.
func compareRV(a, b string) int {
	if a == b {
		return 0
	}
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil || x < y {
		return -1
	}
	if x > y {
		return 1
	}
	return 0
}
