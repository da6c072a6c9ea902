package runtime

// Handler receives a Syncer's events. All methods are called on the sync
// goroutine, one at a time, and must not block.
//
// A resync (the first sync, and every full resync after a 410 Gone) is
// framed by OnResyncStarted and OnSync: between them OnAdd and OnUpdate
// report objects as they stream in, and just before OnSync every object that
// did not appear again is reported to OnDelete.
type Handler[T Object] interface {
	// OnResyncStarted is called when a full (re)sync begins.
	OnResyncStarted()
	// OnAdd is called for an object the store did not hold.
	OnAdd(obj T)
	// OnUpdate is called when an object changed; old is the previous state.
	OnUpdate(old, new T)
	// OnDelete is called with the last known state of a deleted object.
	OnDelete(obj T)
	// OnSync is called when the store matches a consistent snapshot of the server.
	OnSync()
	// OnError is called for every failure; err is a *SyncError. The Syncer
	// retries by itself; OnError is for reporting.
	OnError(err error)
}

// HandlerFuncs adapts plain functions to Handler; nil functions are skipped.
type HandlerFuncs[T Object] struct {
	ResyncStartedFunc func()
	AddFunc           func(obj T)
	UpdateFunc        func(old, new T)
	DeleteFunc        func(obj T)
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
func (f HandlerFuncs[T]) OnDelete(obj T) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
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
