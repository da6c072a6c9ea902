package runtime

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"

	"github.com/syncer-gen/syncer-gen/runtime/internal/handlerqueue"
)

// Registration is a handler added to a Syncer, as returned by AddHandler.
type Registration struct {
	name       string
	synced     chan struct{} // closed once the handler returned from an OnSync
	syncedOnce sync.Once
	removed    chan struct{}
	removeOnce sync.Once
	done       chan struct{} // closed when the handler's goroutine ended
	busy       atomic.Bool   // a call to the handler is under way
	pending    func() int
	detach     func()

	resync *time.Duration // WithHandlerResyncPeriod's; nil: the Syncer's
}

// HandlerOption configures a handler added with AddHandler.
type HandlerOption func(*Registration)

// WithHandlerName names the handler in logs and metrics (default
// "handler-N", N counting from 1 in the order handlers were added).
func WithHandlerName(name string) HandlerOption { return func(r *Registration) { r.name = name } }

// Name returns the handler's name.
func (r *Registration) Name() string { return r.name }

// HasSynced tells whether the handler has returned from an OnSync: it has
// received every object of a consistent snapshot.
func (r *Registration) HasSynced() bool {
	select {
	case <-r.synced:
		return true
	default:
		return false
	}
}

// WaitForSync blocks until HasSynced, the handler is removed or ctx is done.
func (r *Registration) WaitForSync(ctx context.Context) error {
	select {
	case <-r.synced:
		return nil
	case <-r.done:
		return fmt.Errorf("runtime: handler %s stopped before it synced", r.name)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Pending returns the number of calls waiting for the handler.
func (r *Registration) Pending() int { return r.pending() }

// Remove unregisters the handler: it gets no call after the one under way,
// if any. Remove may be called from inside the handler, and more than once.
func (r *Registration) Remove() {
	r.removeOnce.Do(func() {
		r.detach()
		close(r.removed)
	})
}

// Done is closed when the handler will get no more calls and none is under
// way (or, when Remove was called from inside the handler, once that call
// returns).
func (r *Registration) Done() <-chan struct{} { return r.done }

// dispatcher feeds one handler from its queue on a goroutine of its own.
type dispatcher[T Object] struct {
	reg     *Registration
	h       Handler[T]
	initial InitialAdder[T] // h, if it tells the adds of an initial list
	q       *handlerqueue.Queue[Key, T]
	metrics Metrics
	log     logr.Logger
}

// run delivers queued calls until the handler is removed or stop is closed.
func (d *dispatcher[T]) run(stop <-chan struct{}) {
	defer close(d.reg.done)
	for {
		select {
		case <-d.reg.removed:
			return
		case <-stop:
			return
		default:
		}
		d.reg.busy.Store(true)
		n, ok := d.q.Next()
		if !ok {
			d.reg.busy.Store(false)
			select {
			case <-d.q.Wake():
			case <-d.reg.removed:
				return
			case <-stop:
				return
			}
			continue
		}
		d.deliver(n)
		d.reg.busy.Store(false)
	}
}

// deliver makes one call. A panic in the handler is logged and counted,
// and the handler gets its next call as usual: the stream does not stop.
func (d *dispatcher[T]) deliver(n handlerqueue.Call[T]) {
	started := time.Now()
	defer func() {
		if p := recover(); p != nil {
			d.metrics.HandlerPanicked(d.reg.name)
			d.log.Error(fmt.Errorf("%v", p), "handler panicked; it keeps getting events",
				"handler", d.reg.name, "stack", string(debug.Stack()))
		}
		if n.Err == nil && n.Kind == handlerqueue.Synced {
			d.reg.syncedOnce.Do(func() { close(d.reg.synced) })
		}
		if n.Err == nil {
			d.metrics.HandlerCalled(d.reg.name, handlerqueue.Since(started)-n.Since, time.Since(started))
		}
	}()
	switch {
	case n.Err != nil:
		d.h.OnError(n.Err)
	case n.Kind == handlerqueue.ResyncStarted:
		d.h.OnResyncStarted()
	case n.Kind == handlerqueue.Synced:
		d.h.OnSync()
	case !n.HadOld:
		d.add(n.Cur, n.Listed)
	case n.Deleted && n.Recreated: // the object the handler holds went first
		d.h.OnDelete(n.Old, DeletionInferred)
	case n.Deleted && n.Inferred:
		d.h.OnDelete(n.Cur, DeletionInferred)
	case n.Deleted:
		d.h.OnDelete(n.Cur, DeletionObserved)
	case n.Recreated:
		d.h.OnDelete(n.Old, DeletionInferred)
		d.add(n.Cur, n.Listed)
	default:
		d.h.OnUpdate(n.Old, n.Cur)
	}
}
