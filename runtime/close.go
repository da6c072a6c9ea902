package runtime

import (
	"context"
	"errors"
	"sync"
)

// closing is what Close needs of Run.
type closing struct {
	mu       sync.Mutex
	closed   bool
	closedCh chan struct{} // closed by Close: WaitForSync gives up
	released bool
	cancel   context.CancelFunc // Run's, once it began
	done     chan struct{}      // closed when Run returned; nil before Run
}

// releasing tells whether the caller is to release the Syncer: the first
// to ask once it is closed.
func (c *closing) releasing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed || c.released {
		return false
	}
	c.released = true
	return true
}

// closedChan returns the channel Close closes. c.mu is held.
func (c *closing) closedChan() chan struct{} {
	if c.closedCh == nil {
		c.closedCh = make(chan struct{})
	}
	return c.closedCh
}

// signal returns the channel Close closes.
func (c *closing) signal() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closedChan()
}

func (c *closing) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

var (
	errClosed       = errors.New("runtime: Syncer.Run after Close")
	errSyncerClosed = errors.New("runtime: the Syncer was closed before it synced")
)

// run begins a Run: its context, which Close cancels, and the func Run
// calls last, once its handlers ended. A Syncer closed before Run does not
// run.
func (c *closing) run(ctx context.Context) (context.Context, func(release func()), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, nil, errClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	c.cancel, c.done = cancel, make(chan struct{})
	return ctx, func(release func()) {
		cancel()
		if c.releasing() {
			release()
		}
		close(c.done)
	}, nil
}

// Close removes the Syncer, as controller-runtime's RemoveInformer removes
// an informer: Run returns as when its context is done (saving the
// snapshot, with WithSnapshot), its handlers end (their Registrations' Done
// is closed; none is told of the objects), a WaitForSync under way returns
// an error, and the store is emptied, its memory given back even where the
// Syncer is still referenced: its maps are made anew, and what the
// handlers' queues still held is dropped. Run after Close returns an
// error at once and starts no stream. A Syncer that never ran is closed
// the same way: its handlers end (their Done closes) and its store is
// emptied. Close returns once Run has returned, or with ctx's error when ctx
// ends first (a handler blocked in a call): the store is then emptied when
// Run returns. Closing again waits the same way. Do not call it from one
// of the Syncer's handlers: it waits for them. A package syncerset Set
// removes a member with Remove, and a ctrlsyncer Client a type's syncer
// with RemoveSyncer.
func (s *Syncer[T]) Close(ctx context.Context) error {
	c := &s.closing
	c.mu.Lock()
	if !c.closed {
		close(c.closedChan())
	}
	c.closed = true
	cancel, done := c.cancel, c.done
	c.mu.Unlock()
	if done != nil {
		cancel()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if done == nil {
		// Never run: no Run ends its handlers, so Close does, and waits for
		// them as Run would.
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			s.cache.shutdown()
			if c.releasing() {
				s.release()
			}
		}()
		select {
		case <-stopped:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// Run returned before Close marked it closed (its context ended
	// first): it did not release.
	if c.releasing() {
		s.release()
	}
	return nil
}

// release empties the store and drops what the handlers' queues hold, and
// the state of the sync loops, once Run returned (or never ran).
func (s *Syncer[T]) release() {
	s.warm, s.snap, s.bad = nil, nil, nil
	if s.lanes != nil {
		s.lanes.release()
	}
	s.cache.release()
}

func (c *cache[T]) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range c.handlers {
		for {
			if _, ok := d.q.Next(); !ok {
				break
			}
		}
	}
	c.handlers = nil
	c.owed = nil
	c.store.release()
	c.stored(0)
}
