package runtime

import (
	"math/rand/v2"
	"time"
)

// WithResyncPeriod makes every handler of the Syncer get every stored
// object again every d, as OnUpdate(obj, obj): old and new are the same
// object, at the same resourceVersion. This is controller-runtime's
// SyncPeriod (a Manager's cache does it every 10 hours by default) and
// client-go's handler resync period: a controller that missed a change it
// should have acted on, or whose outside world drifted, looks at every
// object again. Each wait is jittered by ±10%, as controller-runtime
// jitters its informers' periods, so that syncers started together do not
// resync together. It re-delivers what the store holds and asks the server
// nothing (WithDriftCheck compares the store with the server). No resync
// is delivered while the Syncer has not synced or a full resync is under
// way. A handler that is behind gets one call per object, folded with the
// changes it has not received. Default 0: never; WithHandlerResyncPeriod
// sets one handler's.
func WithResyncPeriod(d time.Duration) Option { return func(c *config) { c.resyncPeriod = d } }

// WithHandlerResyncPeriod gives the handler a resync period of its own,
// overriding the Syncer's WithResyncPeriod (0: none), as client-go's
// AddEventHandlerWithResyncPeriod does. A negative d is taken as 0.
func WithHandlerResyncPeriod(d time.Duration) HandlerOption {
	return func(r *Registration) { r.resync = new(max(d, 0)) }
}

// jittered returns d scaled by a factor in [0.9, 1.1).
func jittered(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (0.9 + 0.2*rand.Float64()))
}

// startResyncs starts the goroutine that re-delivers the store to d's
// handler every resync period, if it has one. c.mu is held.
func (c *cache[T]) startResyncs(d *dispatcher[T]) {
	period := c.cfg.resyncPeriod
	if d.reg.resync != nil {
		period = *d.reg.resync
	}
	if period <= 0 {
		return
	}
	c.running.Go(func() {
		t := time.NewTimer(jittered(period))
		defer t.Stop()
		for {
			select {
			case <-t.C:
				c.redeliver(d)
				t.Reset(jittered(period))
			case <-d.reg.removed:
				return
			case <-c.stop:
				return
			}
		}
	})
}

// redeliver queues every stored object for d's handler again, as an
// update from the state it holds to the same state. Nothing is queued
// before the first sync or while a resync is under way: the resync tells
// the handler what changed. Listed, so that an initial add still waiting
// stays one.
func (c *cache[T]) redeliver(d *dispatcher[T]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.synced.Load() || c.inResync {
		return
	}
	now := time.Now()
	for _, o := range c.store.List() {
		d.q.Change(o, true, o, false, false, true, now)
	}
}
