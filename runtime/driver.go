package runtime

import "time"

// Driver feeds a Syncer's store and handlers by hand, with no server, so
// that unit tests of code built on a Syncer can play add, update, delete,
// resync and sync events and observe the results: each method returns once
// every handler has received what it played.
type Driver[T Object] struct {
	s *Syncer[T]
}

// NewDriver returns a Syncer of T with no server, and the Driver that feeds
// it. The Syncer's Run blocks until its context is done. Options that shape
// the store (WithIndex, WithTransform, WithStripManagedFields) apply.
func NewDriver[T Object](res Resource, opts ...Option) (*Syncer[T], *Driver[T]) {
	s := newSyncer[T](res, opts)
	return s, &Driver[T]{s: s}
}

// Add applies objects as ADDED events. Before the first Sync, and during
// a Resync, they count as received in the Syncer's Progress.
func (d *Driver[T]) Add(objs ...T) {
	for _, o := range objs {
		d.received()
		d.s.cache.upsert(o)
	}
	d.Wait()
}

// received counts one object into Progress while a sync is under way.
func (d *Driver[T]) received() {
	p := &d.s.progress
	if p.started.Load() == 0 {
		p.begin(time.Now())
	}
	if p.finished.Load() == 0 {
		p.received.Add(1)
	}
}

// Update applies obj as a MODIFIED event. obj must carry a resourceVersion
// different from (newer than) the stored one, or it is dropped as a server
// would never send it.
func (d *Driver[T]) Update(obj T) {
	d.s.cache.upsert(obj)
	d.Wait()
}

// Delete applies obj as a DELETED event.
func (d *Driver[T]) Delete(obj T) {
	d.s.cache.delete(obj)
	d.Wait()
}

// Resync plays a full resync whose snapshot is objs: OnResyncStarted, OnAdd
// or OnUpdate for what is new or changed, OnDelete (DeletionInferred) for
// what is gone, OnSync.
func (d *Driver[T]) Resync(objs ...T) {
	d.s.cache.beginResync(d.s.part)
	d.s.progress.begin(time.Now())
	for _, o := range objs {
		d.received()
		d.s.cache.upsert(o)
	}
	d.Sync()
}

// Sync completes the initial sync with what was added so far, at the
// resourceVersion of the last object played: OnSync, and HasSynced
// becomes true.
func (d *Driver[T]) Sync() {
	d.s.mode.Store(int32(ModeList))
	if d.s.progress.started.Load() == 0 {
		d.s.progress.begin(time.Now())
	}
	d.s.progress.finish(time.Now())
	d.s.cache.finishResync(d.s.part, d.s.cache.lastRV())
	d.Wait()
}

// Error reports err to the handlers as a failure of kind Classify(err).
func (d *Driver[T]) Error(err error) {
	d.s.report(&SyncError{Kind: Classify(err), Resource: d.s.res.String(), Op: "test", Err: err})
	d.Wait()
}

// Wait returns once every handler has received everything queued for it,
// e.g. the current state that AddHandler hands a new handler.
func (d *Driver[T]) Wait() {
	for !d.s.cache.idle() {
		time.Sleep(50 * time.Microsecond)
	}
}
