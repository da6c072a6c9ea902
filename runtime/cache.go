package runtime

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime/internal/handlerqueue"
)

// cache applies events to a Store and queues them for each handler. It
// holds the resync epoch and knows nothing of where events come from: the
// Syncer feeds it from a server, a Driver from a test. Its methods never
// call a handler: each handler has a queue and a goroutine of its own.
type cache[T Object] struct {
	mu         sync.Mutex // serialises event application and handler changes
	store      *Store[T]
	handlers   []*dispatcher[T]
	added      int           // handlers ever added, for default names
	epoch      uint64        // the last resync epoch begun, by any part
	inResync   bool          // a part is in a resync: handlers were told that one began, not yet that it ended
	whole      *part         // the part of a Syncer of one namespace or all
	parts      map[Key]*part // by namespace (Key{Namespace: ns}) or by name (WithNames), for a Syncer of several parts; nil otherwise
	named      bool          // parts are by name (WithNames)
	waiting    bool          // such a Syncer was given no namespaces yet: it has not synced (see namespaces.go)
	synced     atomic.Bool
	syncedCh   chan struct{} // closed at the first finishResync that leaves every part synced
	woken      chan struct{} // closed when the store observes something, for waits (waits.go); nil when none waits
	stop       chan struct{} // closed when the Syncer stops: handler goroutines end
	stopOnce   sync.Once
	running    sync.WaitGroup // every handler goroutine ever started, removed ones included
	transforms []func(any) any
	cfg        *config

	// owed holds objects of a snapshot that handlers were told of by the
	// previous run and the store does not hold (yet): a warm start's
	// changed objects, until their new state is stored, or all of them
	// when the start goes cold. Each is told gone (OnDelete, inferred)
	// unless an object of the same UID is stored before the resync ends.
	owed map[Key]T
}

func newCache[T Object](c *config) *cache[T] {
	return &cache[T]{
		store:      newStore[T](c.indexes, c.namespaced),
		whole:      &part{all: true},
		syncedCh:   make(chan struct{}),
		stop:       make(chan struct{}),
		transforms: c.transforms,
		cfg:        c,
	}
}

// addHandler registers h and starts its goroutine. h first gets the current
// state (OnResyncStarted if a resync is under way, OnAdd for each stored
// object, OnSync if synced), then live events.
func (c *cache[T]) addHandler(h Handler[T], opts []HandlerOption) *Registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.added++
	reg := &Registration{
		name:    fmt.Sprintf("handler-%d", c.added),
		synced:  make(chan struct{}),
		removed: make(chan struct{}),
		done:    make(chan struct{}),
	}
	for _, o := range opts {
		o(reg)
	}
	name, metrics := reg.name, c.cfg.metrics
	q := handlerqueue.New(func(o T) Key { return KeyOf(o) }, func(depth int) { metrics.HandlerQueueDepth(name, depth) })
	reg.pending = q.Len
	d := &dispatcher[T]{reg: reg, h: h, q: q, metrics: c.cfg.metrics,
		log: c.cfg.logger.WithValues("resource", c.cfg.resource)}
	d.initial, _ = h.(InitialAdder[T])
	reg.detach = func() { c.removeHandler(d) }
	now := time.Now()
	if c.inResync {
		q.Barrier(handlerqueue.ResyncStarted, now)
	}
	var zero T
	for _, o := range c.store.List() {
		q.Change(zero, false, o, false, false, true, now) // stored already: of its initial list
	}
	if c.synced.Load() && !c.inResync {
		q.Barrier(handlerqueue.Synced, now)
	}
	c.handlers = append(c.handlers, d)
	c.running.Go(func() { d.run(c.stop) })
	c.startResyncs(d)
	return reg
}

func (c *cache[T]) removeHandler(d *dispatcher[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, x := range c.handlers {
		if x == d {
			c.handlers = append(c.handlers[:i:i], c.handlers[i+1:]...)
			return
		}
	}
}

// registrations returns the handlers registered now.
func (c *cache[T]) registrations() []*Registration {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Registration, len(c.handlers))
	for i, d := range c.handlers {
		out[i] = d.reg
	}
	return out
}

// shutdown ends every handler goroutine after its current call and waits
// for them, those of removed handlers too: one whose handler is inside a
// call when it is removed ends when that call returns.
func (c *cache[T]) shutdown() {
	c.stopOnce.Do(func() { close(c.stop) })
	c.running.Wait()
}

// beginResync starts a new epoch of p: its objects not seen again before
// finishResync are deleted then. Handlers get OnResyncStarted unless a
// resync is already under way (an attempt that failed midway is continued,
// or another part's); it returns whether a new resync of p began.
func (c *cache[T]) beginResync(p *part) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	p.epoch = c.epoch
	p.live = false
	if p.inResync {
		return false
	}
	p.inResync, p.resyncFrom = true, p.rv
	if c.inResync {
		return true
	}
	c.inResync = true
	now := time.Now()
	for _, d := range c.handlers {
		d.q.Barrier(handlerqueue.ResyncStarted, now)
	}
	return true
}

// upsert applies an added or modified object. An object already stored with
// the same resourceVersion is only marked as seen; one older than the stored
// state is dropped, so that per object events stay in resourceVersion order.
func (c *cache[T]) upsert(obj T) {
	rv := obj.GetResourceVersion()
	c.put(c.transform(obj), rv, -1)
}

// restore applies an object from a snapshot, transformed when it was
// saved, of size bytes in the store (Store.size), sized when it was loaded.
func (c *cache[T]) restore(obj T, size int64) { c.put(obj, obj.GetResourceVersion(), size) }

// put applies obj at rv; size is its size in the store (Store.size), or
// -1 for put to size it.
func (c *cache[T]) put(obj T, rv string, size int64) {
	k := KeyOf(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.partOf(k)
	if p == nil { // of a namespace the Syncer no longer covers
		return
	}
	c.advance(p, rv)
	old, ok := c.store.get(k)
	if ok {
		if cmp := compareRV(old.obj.GetResourceVersion(), rv); cmp >= 0 {
			c.store.mark(k, p.epoch)
			return
		}
	}
	if o, owed := c.owed[k]; owed {
		delete(c.owed, k)
		if o.GetUID() != obj.GetUID() { // the previous run's object is gone, and a new one has its name
			c.notify(k, o, true, o, true, DeletionInferred)
		}
	}
	if size < 0 {
		size = c.store.size(obj)
	}
	n := c.store.putSized(k, obj, p.epoch, size)
	c.notify(k, old.obj, ok, obj, false, DeletionObserved)
	c.stored(n)
}

// delete applies a deleted object; handlers get obj, the final state. A
// deletion older than the stored state (an object of the same name fetched
// after it, during a warm start) is dropped.
func (c *cache[T]) delete(obj T) {
	rv := obj.GetResourceVersion()
	obj = c.transform(obj)
	k := KeyOf(obj)
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.partOf(k)
	if p == nil { // of a namespace the Syncer no longer covers
		return
	}
	c.advance(p, rv)
	if cur, ok := c.store.get(k); ok && compareRV(cur.obj.GetResourceVersion(), rv) > 0 {
		return
	}
	old, ok, n := c.store.remove(k)
	if !ok {
		if o, owed := c.owed[k]; owed {
			delete(c.owed, k)
			how := DeletionInferred
			if o.GetUID() == obj.GetUID() {
				how = DeletionObserved // the final state of the object handlers hold
			} else {
				obj = o
			}
			c.notify(k, o, true, obj, true, how)
		}
		return
	}
	c.notify(k, old, true, obj, true, DeletionObserved)
	c.stored(n)
}

// undecodable applies an event of k at rv whose object could not be
// decoded. The object is still there unless deleted: the version stored,
// the last that decoded, is kept and marked as seen, so that a sweep does
// not take it; one owed from a snapshot is stored again, without a call,
// as its handlers hold it. A deletion removes it, told as inferred: its
// final state is not known.
func (c *cache[T]) undecodable(k Key, rv string, deleted bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.partOf(k)
	if p == nil { // of a namespace the Syncer no longer covers
		return
	}
	c.advance(p, rv)
	old, ok := c.store.get(k)
	if ok && compareRV(old.obj.GetResourceVersion(), rv) > 0 {
		return
	}
	o, owed := c.owed[k]
	delete(c.owed, k)
	switch {
	case !deleted && ok:
		c.store.mark(k, p.epoch)
	case !deleted && owed:
		c.stored(c.store.put(k, o, p.epoch))
	case ok:
		_, _, n := c.store.remove(k)
		c.notify(k, old.obj, true, old.obj, true, DeletionInferred)
		c.stored(n)
	case owed:
		c.notify(k, o, true, o, true, DeletionInferred)
	}
}

// owe notes obj, an object of a snapshot that handlers were told of by the
// previous run, as not in the store: see cache.owed.
func (c *cache[T]) owe(obj T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.owed == nil {
		c.owed = map[Key]T{}
	}
	c.owed[KeyOf(obj)] = obj
}

// vanished tells handlers that the object owed under k is gone:
// OnDelete(obj, DeletionInferred), though this process never delivered it,
// since its previous run did.
func (c *cache[T]) vanished(k Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.owed[k]; ok {
		delete(c.owed, k)
		c.notify(k, o, true, o, true, DeletionInferred)
	}
}

// at records that p's objects are at resourceVersion rv: a bookmark's.
func (c *cache[T]) at(p *part, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.advance(p, rv)
}

// advance records that p's objects are at rv, unless rv is older than the
// resourceVersion recorded: an event older than the stored state, dropped
// during a warm start, must not make a later snapshot name a version
// older than its contents. c.mu is held.
func (c *cache[T]) advance(p *part, rv string) {
	if p.rv == "" || compareRV(rv, p.rv) > 0 || !integerRV(rv) || !integerRV(p.rv) {
		p.rv = rv
	}
	c.wake()
}

// snapshot returns p's objects and the resourceVersion they are the
// server's state at, when they are a consistent state of the server (synced
// and no resync under way), for saving. Outside a resync the events come
// in resourceVersion order and each one applied sets the resourceVersion,
// so the objects are the state at it.
func (c *cache[T]) snapshot(p *part) (objs []T, rv string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !p.synced || p.inResync {
		return nil, "", false
	}
	return c.objectsOf(p), p.rv, true
}

// settled tells whether p's objects are a consistent state of the server:
// synced, and no resync under way.
func (c *cache[T]) settled(p *part) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.synced && !p.inResync
}

// finishResync deletes what p's resync did not see and marks p synced at
// resourceVersion rv; once no part is in a resync, the cache is synced and
// handlers get OnSync.
func (c *cache[T]) finishResync(p *part, rv string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.rv = rv
	var gone []T
	var n int
	switch {
	case p.all:
		gone, n = c.store.sweep(p.epoch)
	case p.name != "":
		gone, n = c.store.sweepOne(Key{Namespace: p.ns, Name: p.name}, p.epoch)
	default:
		gone, n = c.store.sweepNamespace(p.ns, p.epoch)
	}
	for _, o := range gone {
		c.notify(KeyOf(o), o, true, o, true, DeletionInferred)
	}
	for k, o := range c.owed { // not stored again: gone from the server
		if p.holds(k) {
			c.notify(k, o, true, o, true, DeletionInferred)
			delete(c.owed, k)
		}
	}
	c.stored(n)
	if p.refused != nil {
		p.refused = nil
		c.countNames()
	}
	p.inResync, p.synced = false, true
	c.wake()
	c.settle(true)
}

// stored reports the store's size after a change: n objects, and the
// bytes it holds. c.mu is held.
func (c *cache[T]) stored(n int) {
	c.cfg.metrics.ObjectsStored(n)
	c.cfg.metrics.StoreBytes(c.store.Bytes())
}

// notify queues a change of k for every handler. c.mu is held.
func (c *cache[T]) notify(k Key, prev T, hadPrev bool, cur T, deleted bool, how Deletion) {
	now, listed := time.Now(), c.listing(k)
	for _, d := range c.handlers {
		d.q.Change(prev, hadPrev, cur, deleted, how == DeletionInferred, listed, now)
	}
}

// fail reports err to every handler.
func (c *cache[T]) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.handlers {
		d.q.Fail(err)
	}
}

// waitHandlersSynced blocks until every handler registered now has synced.
func (c *cache[T]) waitHandlersSynced(ctx context.Context) error {
	for _, r := range c.registrations() {
		select {
		case <-r.synced:
		case <-r.done: // removed or stopped: nothing to wait for
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// idle tells whether every handler has received everything queued for it.
func (c *cache[T]) idle() bool {
	for _, r := range c.registrations() {
		if r.Pending() > 0 || r.busy.Load() {
			return false
		}
	}
	return true
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

// integerRV tells whether rv is an integer, as every etcd-backed server's
// resourceVersions are: only those are ordered (see compareRV).
func integerRV(rv string) bool {
	_, err := strconv.ParseUint(rv, 10, 64)
	return err == nil
}
