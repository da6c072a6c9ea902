package handlerqueue

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Object is what the queue needs of an object: its UID, to tell a
// recreated object from an updated one.
type Object interface{ GetUID() types.UID }

// Queue holds what one handler has yet to receive, per object key K. Its
// nodes are folded as the package documentation says; New makes one.
type Queue[K comparable, T Object] struct {
	mu         sync.Mutex
	head, tail *node[T]
	key        func(T) K
	byKey      map[K]*node[T]
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

// Kind says what a Call is.
type Kind uint8

const (
	Change        Kind = iota // an object was added, updated or deleted
	ResyncStarted             // a resync began
	Synced                    // the store holds the server's state
)

// node is one call waiting. It is kept small (48 bytes with pointer-sized
// T), as a handler that is behind, or one added before the sync, holds one
// per object: an object's key is that of cur, not a copy, and the arrival
// time is a monotonic offset rather than a time.Time.
type node[T Object] struct {
	prev, next *node[T]
	old, cur   T
	since      time.Duration // since queueClock: when the first event folded into this node arrived
	kind       Kind
	hadOld     bool
	deleted    bool
	inferred   bool   // a deletion the handler is told of without its final state
	recreated  bool   // old's object is gone; cur, if not deleted, is another
	listed     bool   // every change folded into it came from a list, none from a live event
	resync     uint16 // queue.resyncs when the node was queued
}

// clock is the origin of node.since; times are compared on the monotonic
// clock.
var clock = time.Now()

// Since returns t as the offset Call.Since is given in.
func Since(t time.Time) time.Duration { return t.Sub(clock) }

// Call is one call to make to a handler.
type Call[T Object] struct {
	Kind      Kind
	Old       T // for a Change with HadOld: the state the handler last received
	Cur       T // for a Change: the latest state, the final one when Deleted
	HadOld    bool
	Deleted   bool
	Recreated bool // Old's object is gone; Cur, unless Deleted, is another one
	Inferred  bool // a deletion whose final state is not known (Cur may be stale)
	Listed    bool // every change folded into it came from a list (a resync's), none from a live event
	Err       error
	Since     time.Duration // when the first event folded into it arrived, as Since returns
}

// New returns an empty queue of objects keyed by key. reported, if not
// nil, is told the number of calls waiting after each change, in the order
// of the changes.
func New[K comparable, T Object](key func(T) K, reported func(depth int)) *Queue[K, T] {
	return &Queue[K, T]{key: key, byKey: map[K]*node[T]{}, wake: make(chan struct{}, 1), reported: reported}
}

// report tells reported the depth. q.mu is held.
func (q *Queue[K, T]) report() {
	if q.reported != nil {
		q.reported(q.lenLocked())
	}
}

// Change queues a change of the object cur: prev is the state the store
// held before it (what the handler received last, once every call of that
// object before it is delivered), cur the new state, the final one if
// deleted; inferred says that a deletion's final state is not known;
// listed, that the change comes from a list rather than a live event. A
// call is Listed while every change folded into it is: a live change of an
// object waiting to be added makes its add live.
func (q *Queue[K, T]) Change(prev T, hadPrev bool, cur T, deleted, inferred, listed bool, now time.Time) {
	k := q.key(cur)
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.byKey[k]
	switch {
	case n != nil && deleted && !n.hadOld:
		q.remove(n) // added and deleted before the handler saw it
		delete(q.byKey, k)
		q.report()
		return
	case n != nil && deleted && inferred && n.resync != q.resyncs:
		// Inferred by a resync whose OnResyncStarted waits after n: the
		// deletion comes after that barrier, from the state n leaves.
		prev, hadPrev, n = n.cur, true, nil
	case n != nil:
		if !deleted && (n.deleted || otherUID(n.cur, cur)) {
			n.recreated = true
		}
		n.cur, n.deleted, n.inferred = cur, deleted, inferred
		n.listed = n.listed && listed
		return
	case deleted && !hadPrev:
		return
	}
	n = q.alloc()
	*n = node[T]{kind: Change, old: prev, hadOld: hadPrev, cur: cur, deleted: deleted, inferred: inferred, listed: listed,
		recreated: hadPrev && !deleted && otherUID(prev, cur), resync: q.resyncs, since: Since(now)}
	q.byKey[k] = n
	q.append(n)
}

// otherUID tells whether cur is another object than old under the same
// name. Objects without a UID (after a transform, in a Driver) are one.
func otherUID(old, cur Object) bool {
	return old.GetUID() != "" && cur.GetUID() != "" && old.GetUID() != cur.GetUID()
}

// Barrier queues a ResyncStarted or a Synced, folded into the run of
// barriers at the tail.
func (q *Queue[K, T]) Barrier(kind Kind, now time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.alloc()
	*n = node[T]{kind: kind, since: Since(now)}
	if kind == ResyncStarted {
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
func (q *Queue[K, T]) fold(n *node[T]) {
	if n == nil || n.kind == Change {
		return
	}
	first, last := n, n
	for first.prev != nil && first.prev.kind != Change {
		first = first.prev
	}
	for last.next != nil && last.next.kind != Change {
		last = last.next
	}
	if first == last {
		return
	}
	keepSync := first.kind == ResyncStarted && last.kind == ResyncStarted
	var kept *node[T]
	for x := first.next; x != last; {
		next := x.next
		if keepSync && kept == nil && x.kind == Synced {
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

// Fail keeps err for the handler, replacing an error not delivered yet.
func (q *Queue[K, T]) Fail(err error) {
	q.mu.Lock()
	q.err = err
	q.report()
	q.mu.Unlock()
	q.signal()
}

// Next takes the next call to make; ok is false when the queue is empty.
func (q *Queue[K, T]) Next() (n Call[T], ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.err != nil {
		n, q.err = Call[T]{Err: q.err}, nil
		q.report()
		return n, true
	}
	h := q.head
	if h == nil {
		return n, false
	}
	q.unlink(h)
	if h.kind == Change {
		if k := q.key(h.cur); q.byKey[k] == h { // not when a later node of k took its place
			delete(q.byKey, k)
		}
	}
	q.report()
	n = Call[T]{Kind: h.kind, Old: h.old, Cur: h.cur, HadOld: h.hadOld, Deleted: h.deleted,
		Recreated: h.recreated, Inferred: h.inferred, Listed: h.listed, Since: h.since}
	q.release(h)
	return n, true
}

// alloc returns a node to fill, reused when one is free. q.mu is held.
func (q *Queue[K, T]) alloc() *node[T] {
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
func (q *Queue[K, T]) release(n *node[T]) {
	if q.nfree >= maxFreeNodes {
		return
	}
	*n = node[T]{next: q.free}
	q.free = n
	q.nfree++
}

// Len returns the number of calls waiting.
func (q *Queue[K, T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.lenLocked()
}

func (q *Queue[K, T]) lenLocked() int {
	n := q.depth
	if q.err != nil {
		n++
	}
	return n
}

func (q *Queue[K, T]) append(n *node[T]) {
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
func (q *Queue[K, T]) remove(n *node[T]) {
	prev := n.prev
	q.unlink(n)
	q.release(n)
	if prev != nil {
		q.fold(prev)
	}
}

func (q *Queue[K, T]) unlink(n *node[T]) {
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

// Wake is signalled after calls were queued; a reader that found the queue
// empty waits on it before calling Next again.
func (q *Queue[K, T]) Wake() <-chan struct{} { return q.wake }

func (q *Queue[K, T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}
