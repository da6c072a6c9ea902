package runtime

// Handler receives a Syncer's events. Each registered handler has a queue
// and a goroutine of its own: its methods are called one at a time, never
// on the goroutine that reads the server's stream, so a slow or blocked
// handler delays only itself. Calls may come from a different goroutine
// each time.
//
// A resync (the first sync, and every full resync after a 410 Gone) is
// framed by OnResyncStarted and OnSync: between them OnAdd and OnUpdate
// report objects as they stream in, and before OnSync every object that did
// not appear again is reported to OnDelete with DeletionInferred. A resync
// that fails midway is continued by the next attempt: there is one
// OnResyncStarted for each OnSync.
//
// A handler that falls behind gets the latest state of each object rather
// than every intermediate one: OnUpdate(old, new) has as old the state the
// handler last received, an object added and deleted before the handler got
// to it is never mentioned, and an object deleted and created again under
// the same name is reported as OnDelete then OnAdd. Per object, calls come
// in resourceVersion order; OnSync comes after every object of the snapshot
// it completes.
//
// A handler that implements InitialAdder tells the objects of a resync's
// list from those created while the Syncer watched. With a resync period
// (WithResyncPeriod), OnUpdate(obj, obj) re-delivers each stored object:
// old and new are the same.
type Handler[T Object] interface {
	// OnResyncStarted is called when a full (re)sync begins.
	OnResyncStarted()
	// OnAdd is called for an object the handler did not know (see
	// InitialAdder).
	OnAdd(obj T)
	// OnUpdate is called when an object changed; old is the state the
	// handler last received.
	OnUpdate(old, new T)
	// OnDelete is called when an object is gone. how tells whether obj is
	// the final state the server reported (DeletionObserved) or the last
	// state the handler received, found gone at a resync (DeletionInferred).
	OnDelete(obj T, how Deletion)
	// OnSync is called when the store matched a consistent snapshot of the
	// server and every object of that snapshot reached this handler.
	OnSync()
	// OnError is called for failures; err is a *SyncError. The Syncer
	// retries by itself; OnError is for reporting. While the handler is
	// behind, only the latest error is kept for it.
	OnError(err error)
}

// Deletion tells how a Syncer learned that an object is gone.
type Deletion uint8

const (
	// DeletionObserved: the server sent a DELETED event; the object handed
	// to OnDelete is its final state.
	DeletionObserved Deletion = iota
	// DeletionInferred: the object vanished while the Syncer could not
	// watch (it was missing from the snapshot of a resync), or was deleted
	// and created again before the handler got to it. The object handed to
	// OnDelete is the last state the handler received, not the final one:
	// client-go's DeletedFinalStateUnknown, typed.
	DeletionInferred
)

// String returns "observed" or "inferred".
func (d Deletion) String() string {
	if d == DeletionInferred {
		return "inferred"
	}
	return "observed"
}

// HandlerFuncs adapts plain functions to Handler; nil functions are
// skipped. InitialAddFunc, when set, gets the adds of an initial list and
// AddFunc the live ones (see InitialAdder); when nil, AddFunc gets both.
type HandlerFuncs[T Object] struct {
	ResyncStartedFunc func()
	AddFunc           func(obj T)
	InitialAddFunc    func(obj T)
	UpdateFunc        func(old, new T)
	DeleteFunc        func(obj T, how Deletion)
	SyncFunc          func()
	ErrorFunc         func(err error)
}

var _ Handler[Object] = HandlerFuncs[Object]{}

// OnResyncStarted implements Handler.
func (f HandlerFuncs[T]) OnResyncStarted() {
	if f.ResyncStartedFunc != nil {
		f.ResyncStartedFunc()
	}
}

// OnAdd implements Handler.
func (f HandlerFuncs[T]) OnAdd(obj T) {
	if f.AddFunc != nil {
		f.AddFunc(obj)
	}
}

// OnUpdate implements Handler.
func (f HandlerFuncs[T]) OnUpdate(old, new T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(old, new)
	}
}

// OnDelete implements Handler.
func (f HandlerFuncs[T]) OnDelete(obj T, how Deletion) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, how)
	}
}

// OnSync implements Handler.
func (f HandlerFuncs[T]) OnSync() {
	if f.SyncFunc != nil {
		f.SyncFunc()
	}
}

// OnError implements Handler.
func (f HandlerFuncs[T]) OnError(err error) {
	if f.ErrorFunc != nil {
		f.ErrorFunc(err)
	}
}
