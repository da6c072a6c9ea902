package runtime

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/syncer-gen/syncer-gen/runtime/internal/writelog"
)

// Writes remembers a program's own writes of a Syncer's resource so that
// its reads wait until the store has seen them: read-your-own-writes, per
// object. A reconcile that creates a child and reads its children again
// finds it; one that writes a status reads it back, not the state before.
//
// Hand it each write's answer (Wrote, Deleted), and read through it (Get,
// List, or WaitForGet and WaitForList before reading the store). A read
// waits only for the writes that can change its answer: Get for the
// writes of its object, List for the writes of objects its Selection picks
// before or after the write; a read also waits for the writes of those
// objects still in flight when it began (Begin), so that it cannot see the
// state before a write that started before it. Reads of writes the store
// has seen, and writes of other programs, never wait. A wait past the
// limit (NewWrites, default 10s) fails with a *StaleReadError; where
// resourceVersions do not compare it returns at once (Metrics.ReadWaited
// counts it). Its methods are safe for concurrent use.
//
//	w := runtime.NewWrites(widgets.Syncer)
//	end := w.Begin(obj.Namespace, obj.Name)
//	defer end() // once the answer is recorded
//	out, err := client.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
//	if err == nil {
//		w.Wrote(out)
//	}
//	...
//	cur, ok, err := w.Get(ctx, obj.Namespace, obj.Name) // out, or newer
type Writes[T Object] struct {
	s     *Syncer[T]
	limit time.Duration
	log   *writelog.Log[Key, write[T]]
}

// write is one answered write, a link in its object's chain (see Wrote).
type write[T Object] struct {
	rv     string    // what the server answered; "" for a deletion
	uid    types.UID // a deletion's object
	known  string    // a deletion: the last resourceVersion of that object the program knew; "" if none
	before T         // the object before the write: the previous write's answer, or the store's; zero if nothing
	after  T         // the server's answer; zero for a deletion
}

// defaultWaitLimit bounds a read's wait: a store more than this behind its
// server is told (StaleReadError), not waited for.
const defaultWaitLimit = 10 * time.Second

// NewWrites returns the writes of a program to s's resource, none yet.
// limit bounds each read's wait; 0 means the default, 10s.
func NewWrites[T Object](s *Syncer[T], limit time.Duration) *Writes[T] {
	if limit <= 0 {
		limit = defaultWaitLimit
	}
	w := &Writes[T]{s: s, limit: limit}
	w.log = writelog.New(w.seen)
	return w
}

// Begin tells that a write of the object namespace/name is under way (name
// "" for a create with generateName), and returns the function that ends
// it, to call once it failed, or once its answer is recorded (Wrote or
// Deleted): a read that waits for it returns when it ends, and with the
// answer recorded first it waits for the store to see the answer too.
// Ended before the answer is recorded, a read that began while the write
// was under way can return the state before it.
func (w *Writes[T]) Begin(namespace, name string) (end func()) {
	return w.log.Begin(Key{namespace, name})
}

// Wrote records obj, the server's answer to a create, update, patch or
// apply of an object (of it or of its status, or another subresource), so
// that reads wait until the store holds obj's resourceVersion or later.
// It keeps a copy of obj.
//
// The writes of one object not yet seen are one chain, in the order they
// were recorded: each write's state before is the answer to the program's
// previous write of the object (what the store held, for the first), and
// a read that waits for any write of the chain waits for its last. So a
// List of the selection a write moved the object into waits until the
// store has seen the program's later writes of it too, and never returns
// a state the program itself has already changed.
func (w *Writes[T]) Wrote(obj T) {
	obj = obj.DeepCopyObject().(T) // the caller's to change: a program writes one object again and again
	k := KeyOf(obj)
	stored, _ := w.s.cache.store.Get(k.Namespace, k.Name)
	w.log.Record(k, func(prev write[T], chained bool) (write[T], bool) {
		before := stored
		if chained {
			before = prev.after
		}
		return write[T]{rv: obj.GetResourceVersion(), before: before, after: obj}, true
	})
}

// Deleted records the deletion of obj (its namespace, name and UID), so
// that reads wait until the store no longer holds it. Where obj has no UID
// (a delete by name), it is that of the program's previous write of the
// object, else the stored object's; with neither, nothing is recorded:
// there is nothing the store could show.
//
// The deletion is seen when the store holds another UID under the name;
// or holds the object marked for deletion and kept (finalizers, or a
// deletion grace period: the server answered the DELETE with the object,
// which stays); or no longer holds it and has reached the resourceVersion
// of the object that the program last knew, so that a deletion recorded
// before the store saw the object at all is not seen until the store has
// seen it come and go. A deletion marked and not kept (a Pod with no node
// is marked, then deleted, with two events) is seen once it is gone.
func (w *Writes[T]) Deleted(obj T) {
	k := KeyOf(obj)
	stored, inStore := w.s.cache.store.Get(k.Namespace, k.Name)
	w.log.Record(k, func(prev write[T], chained bool) (write[T], bool) {
		var zero, before T
		switch {
		case chained && any(prev.after) != any(zero):
			before = prev.after
		case inStore:
			before = stored
		}
		uid := obj.GetUID()
		if uid == "" && any(before) != any(zero) {
			uid = before.GetUID()
		}
		if uid == "" {
			return write[T]{}, false
		}
		known := ""
		if any(before) != any(zero) && before.GetUID() == uid {
			known = before.GetResourceVersion()
		} else {
			before = obj.DeepCopyObject().(T)
		}
		return write[T]{uid: uid, known: known, before: before}, true
	})
}

// seen tells whether the store has seen wr, the last write of k's chain,
// and so every write of it. Incomparable resourceVersions count as seen:
// nothing will ever be waited for them.
func (w *Writes[T]) seen(k Key, wr write[T]) bool {
	c := w.s.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	ok, err := c.seen(k, wr)
	return ok || err != nil
}

// seen: see Writes.seen; an error where resourceVersions do not compare.
// c.mu is held.
func (c *cache[T]) seen(k Key, wr write[T]) (bool, error) {
	if wr.rv == "" {
		return c.deletionSeen(k, wr.uid, wr.known)
	}
	return c.objectAt(k, wr.rv)
}

// Pending returns how many writes the store has not been found to have
// seen yet (the last read's view; writes are forgotten as reads find them
// seen, and when their number doubles).
func (w *Writes[T]) Pending() int { return w.log.Len() }

// WaitForGet blocks until the store has seen every write of the object
// namespace/name recorded before the call, and those in flight then.
func (w *Writes[T]) WaitForGet(ctx context.Context, namespace, name string) error {
	k := Key{namespace, name}
	return w.wait(ctx, WaitOpGet, func(f Key) bool { return f == k }, func(e Key) bool { return e == k }, nil)
}

// WaitForList blocks until the store has seen every write recorded before
// the call of an object sel picks, before or after the write, and every
// write in flight then (whose answer is not known yet).
func (w *Writes[T]) WaitForList(ctx context.Context, sel Selection) error {
	var keep func(Key) bool
	if sel.Namespace != "" {
		keep = func(k Key) bool { return k.Namespace == sel.Namespace }
	}
	st := w.s.cache.store
	picks := func(wr write[T]) bool {
		var zero T
		return any(wr.before) != any(zero) && st.picks(sel, wr.before, "") ||
			any(wr.after) != any(zero) && st.picks(sel, wr.after, "")
	}
	return w.wait(ctx, WaitOpList, keep, keep, picks)
}

// wait waits for the writes in flight of the keys flying accepts, then for
// the chains of the keys keep accepts of which picks accepts a write (all
// when nil), each until its last write is seen, within the limit.
func (w *Writes[T]) wait(ctx context.Context, op WaitOp, flying, keep func(Key) bool, picks func(write[T]) bool) error {
	timer := time.NewTimer(w.limit)
	defer timer.Stop()
	start := time.Now()
	for _, f := range w.log.Flights(flying) {
		select {
		case <-f.Done:
		case <-timer.C:
			return w.stale(op, start, &StaleReadError{Key: f.Key})
		case <-ctx.Done():
			w.s.cfg.metrics.ReadWaited(op, WaitCancelled, time.Since(start))
			return ctx.Err()
		}
	}
	var waiting []writelog.Chain[Key, write[T]]
	for _, c := range w.log.Pending(keep) {
		if picks == nil || slices.ContainsFunc(c.Writes, picks) {
			waiting = append(waiting, c)
		}
	}
	var behind *writelog.Chain[Key, write[T]] // the first chain not seen, for the error
	c := w.s.cache
	err := w.s.await(ctx, op, timer.C, func() (bool, error) {
		for i := range waiting {
			switch ok, err := c.seen(waiting[i].Key, waiting[i].Last()); {
			case err != nil:
				return false, err
			case !ok:
				behind = &waiting[i]
				return false, nil
			}
		}
		return true, nil
	}, func() *StaleReadError {
		last := behind.Last()
		return &StaleReadError{Key: behind.Key, ResourceVersion: last.rv, UID: last.uid}
	})
	if len(waiting) > 0 {
		w.log.Prune(waiting) // those seen, or whose resourceVersions do not compare
	}
	return err
}

// stale reports a wait for a write in flight that outlived the limit.
func (w *Writes[T]) stale(op WaitOp, start time.Time, e *StaleReadError) error {
	waited := time.Since(start)
	w.s.cfg.metrics.ReadWaited(op, WaitTimedOut, waited)
	e.Resource, e.Waited, e.StoreAt = w.s.res.String(), waited, w.s.LastSyncResourceVersion()
	return e
}

// Get returns the object namespace/name from the store once the store has
// seen the writes WaitForGet waits for. Like the store's reads, it does
// not wait for the first sync (Syncer.WaitForSync does).
func (w *Writes[T]) Get(ctx context.Context, namespace, name string) (T, bool, error) {
	if err := w.WaitForGet(ctx, namespace, name); err != nil {
		var zero T
		return zero, false, err
	}
	o, ok := w.s.Store().Get(namespace, name)
	return o, ok, nil
}

// List returns the objects sel picks from the store once the store has
// seen the writes WaitForList waits for.
func (w *Writes[T]) List(ctx context.Context, sel Selection) ([]T, error) {
	if err := w.WaitForList(ctx, sel); err != nil {
		return nil, err
	}
	return w.s.Store().Select(sel), nil
}
