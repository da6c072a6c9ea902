package runtime

import (
	"sync"
	"time"
)

// queue holds what one handler has yet to receive. It never blocks the
// Syncer: pushes only link nodes. Its size is bounded by the number of
// objects, not by the event rate, because the events of one object that
// the handler has not received yet are folded into one node, which keeps
// its place in the queue:
//
//   - old is the state the handler last received (none: hadOld is false),
//   - cur is the latest state, or the final one when deleted is set,
//   - recreated says that old's object is gone and cur is another one under
//     its name (deleted and created again, or a new UID), so that the
//     handler is told old is gone, whatever happened to cur after.
//
// An object added and deleted before the handler got to it leaves the
// queue. Resync barriers (OnResyncStarted, OnSync) are nodes too, so that a
// handler gets OnSync only after every object that came before it; a run
// of barriers with no object between them is folded to its first and last
// (see fold), also when the object between two runs leaves the queue, so
// that a blocked handler holds at most two barriers per object. An
// inferred deletion is never folded into a node queued before the
// OnResyncStarted of the resync that inferred it: it waits in a node of its
// own after that barrier (at most one such node per object and resync).
// Only the latest error waits for the handler.
type queue[T Object] struct {
	mu         sync.Mutex
	head, tail *node[T]
	byKey      map[Key]*node[T]
	depth      int
	err        error // latest error not yet delivered
	wake       chan struct{}
	// reported is told the number of calls waiting after each change, under
	// mu, so that reports come in the order of the changes; may be nil.
	reported func(depth int)
	// free holds up to maxFreeNodes delivered nodes, linked by next, for
	// reuse: a handler that keeps up then allocates nothing per event.
	free  *node[T]
	nfree int
	// resyncs counts the OnResyncStarted barriers queued: a node whose
	// resync differs has one of them after it.
	resyncs uint16
}

// maxFreeNodes bounds the nodes a queue keeps for reuse (48 bytes each).
const maxFreeNodes = 256

type nodeKind uint8

const (
	nodeObject nodeKind = iota
	nodeResyncStarted
	nodeSync
)

// node is one call waiting. It is kept small (48 bytes with pointer-sized
// T), as a handler that is behind, or one added before the sync, holds one
// per object: an object's key is that of cur, not a copy, and the arrival
// time is a monotonic offset rather than a time.Time.
type node[T Object] struct {
	prev, next *node[T]
	old, cur   T
	since      time.Duration // since queueClock: when the first event folded into this node arrived
	kind       nodeKind
	hadOld     bool
	deleted    bool
	how        Deletion
	recreated  bool   // old's object is gone; cur, if not deleted, is another
	resync     uint16 // queue.resyncs when the node was queued
}

// queueClock is the origin of node.since; times are compared on the
// monotonic clock.
var queueClock = time.Now()

// sinceClock returns t as an offset from queueClock.
func sinceClock(t time.Time) time.Duration { return t.Sub(queueClock) }

// note is one call to make to a handler.
type note[T Object] struct {
	kind      nodeKind
	old       T
	cur       T
	hadOld    bool
	deleted   bool
	recreated bool
	how       Deletion
	err       error
	since     time.Duration // since queueClock
}

func newQueue[T Object](reported func(depth int)) *queue[T] {
	return &queue[T]{byKey: map[Key]*node[T]{}, wake: make(chan struct{}, 1), reported: reported}
}

// report tells reported the depth. q.mu is held.
func (q *queue[T]) report() {
	if q.reported != nil {
		q.reported(q.lenLocked())
	}
}

// object queues a change of k: prev is the state the store held before it
// (what the handler received last, once every node of k before it is
// delivered), cur the new state. k must be KeyOf(cur): the node does not
// keep a copy of it.
func (q *queue[T]) object(k Key, prev T, hadPrev bool, cur T, deleted bool, how Deletion, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.byKey[k]
	switch {
	case n != nil && deleted && !n.hadOld:
		q.remove(n) // added and deleted before the handler saw it
		delete(q.byKey, k)
		q.report()
		return
	case n != nil && deleted && how == DeletionInferred && n.resync != q.resyncs:
		// Inferred by a resync whose OnResyncStarted waits after n: the
		// deletion comes after that barrier, from the state n leaves.
		prev, hadPrev, n = n.cur, true, nil
	case n != nil:
		if !deleted && (n.deleted || otherUID(n.cur, cur)) {
			n.recreated = true
		}
		n.cur, n.deleted, n.how = cur, deleted, how
		return
	case deleted && !hadPrev:
		return
	}
	n = q.alloc()
	*n = node[T]{kind: nodeObject, old: prev, hadOld: hadPrev, cur: cur, deleted: deleted, how: how,
		recreated: hadPrev && !deleted && otherUID(prev, cur), resync: q.resyncs, since: sinceClock(now)}
	q.byKey[k] = n
	q.append(n)
}

// otherUID tells whether cur is another object than old under the same
// name. Objects without a UID (after a transform, in a Driver) are one.
func otherUID(old, cur Object) bool {
	return old.GetUID() != "" && cur.GetUID() != "" && old.GetUID() != cur.GetUID()
}

// barrier queues OnResyncStarted or OnSync, folded into the run of barriers
// at the tail.
func (q *queue[T]) barrier(kind nodeKind, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.alloc()
	*n = node[T]{kind: kind, since: sinceClock(now)}
	if kind == nodeResyncStarted {
		q.resyncs++
	}
	q.append(n)
	q.fold(n)
}

// fold shortens the run of barriers around n (with no object between them)
// to its first and its last barrier, or to the first alone when both are
// alike: the resyncs in between changed nothing for the handler. A run
// from one OnResyncStarted to another keeps an OnSync between them, so
// that a resync under way never holds back the OnSync of one that ended:
// [sync, resync, sync] is [sync], [resync, sync, resync, sync] is
// [resync, sync], [resync, sync, resync, sync, resync] is
// [resync, sync, resync]. q.mu is held.
func (q *queue[T]) fold(n *node[T]) {
	if n == nil || n.kind == nodeObject {
		return
	}
	first, last := n, n
	for first.prev != nil && first.prev.kind != nodeObject {
		first = first.prev
	}
	for last.next != nil && last.next.kind != nodeObject {
		last = last.next
	}
	if first == last {
		return
	}
	keepSync := first.kind == nodeResyncStarted && last.kind == nodeResyncStarted
	var kept *node[T]
	for x := first.next; x != last; {
		next := x.next
		if keepSync && kept == nil && x.kind == nodeSync {
			kept = x
		} else {
			q.unlink(x)
			q.release(x)
		}
		x = next
	}
	if last.kind == first.kind && kept == nil {
		q.unlink(last)
		q.release(last)
	}
	q.report()
}

// fail keeps err for the handler, replacing an error not delivered yet.
func (q *queue[T]) fail(err error) {
	q.mu.Lock()
	q.err = err
	q.report()
	q.mu.Unlock()
	q.signal()
}

// next takes the next call to make; ok is false when the queue is empty.
func (q *queue[T]) next() (n note[T], ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		n, q.err = note[T]{err: q.err}, nil
		q.report()
		return n, true
	}
	h := q.head
	if h == nil {
		return n, false
	}
	q.unlink(h)
	if h.kind == nodeObject {
		if k := KeyOf(h.cur); q.byKey[k] == h { // not when a later node of k took its place
			delete(q.byKey, k)
		}
	}
	q.report()
	n = note[T]{kind: h.kind, old: h.old, cur: h.cur, hadOld: h.hadOld, deleted: h.deleted, how: h.how,
		recreated: h.recreated, since: h.since}
	q.release(h)
	return n, true
}

// alloc returns a node to fill, reused when one is free. q.mu is held.
func (q *queue[T]) alloc() *node[T] {
	n := q.free
	if n == nil {
		return new(node[T])
	}
	q.free, n.next = n.next, nil
	q.nfree--
	return n
}

// release keeps n, unlinked and out of byKey, for reuse, without the
// objects it held. q.mu is held.
func (q *queue[T]) release(n *node[T]) {
	if q.nfree >= maxFreeNodes {
		return
	}
	*n = node[T]{next: q.free}
	q.free = n
	q.nfree++
}

// len returns the number of calls waiting.
func (q *queue[T]) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lenLocked()
}

func (q *queue[T]) lenLocked() int {
	n := q.depth
	if q.err != nil {
		n++
	}
	return n
}

func (q *queue[T]) append(n *node[T]) {
	n.prev = q.tail
	if q.tail != nil {
		q.tail.next = n
	} else {
		q.head = n
	}
	q.tail = n
	q.depth++
	q.report()
	q.signal()
}

// remove takes n out of the queue for good, folding the barriers it
// separated. q.mu is held; the caller reports.
func (q *queue[T]) remove(n *node[T]) {
	prev := n.prev
	q.unlink(n)
	q.release(n)
	if prev != nil {
		q.fold(prev)
	}
}

func (q *queue[T]) unlink(n *node[T]) {
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		q.head = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	} else {
		q.tail = n.prev
	}
	n.prev, n.next = nil, nil
	q.depth--
}

func (q *queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
