package queue

import (
	"sync"

	"k8s.io/client-go/util/workqueue"
)

// Priority is client-go's rate-limiting work queue with two levels: a key
// added with AddLow comes out after every key added with Add, and a key
// waiting at the low level moves up, to the end of the high one, when it
// is added with Add. Within a level keys come out in the order they were
// added. This is what controller-runtime's priority queue does with the
// initial list (its LowPriority), for programs without controller-runtime:
// Enqueue adds the objects of a resync's list (runtime.InitialAdder), and
// the updates of a resync period (the same resourceVersion), with AddLow,
// so that after a restart a live change is reconciled before the backlog.
//
// Everything else is client-go's workqueue.Typed: a key is queued once,
// a key being processed and added again is queued when Done, Add, Get,
// Done, ShutDown and the rate limiter behave as documented there. Keys
// that come back from AddRateLimited or AddAfter come at the high level.
type Priority[K comparable] struct {
	workqueue.TypedRateLimitingInterface[K]
	levels *levels[K]
}

// NewPriority returns a Priority queue whose AddRateLimited waits as
// limiter says, e.g. workqueue.DefaultTypedControllerRateLimiter[runtime.Key]().
func NewPriority[K comparable](limiter workqueue.TypedRateLimiter[K]) *Priority[K] {
	l := &levels[K]{want: map[K]bool{}, at: map[K]entry[K]{}}
	base := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[K]{Queue: l})
	delaying := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[K]{Queue: base})
	return &Priority[K]{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(limiter,
			workqueue.TypedRateLimitingQueueConfig[K]{DelayingQueue: delaying}),
		levels: l,
	}
}

// Add queues k at the high level, or moves it there.
func (q *Priority[K]) Add(k K) {
	q.levels.wish(k, true)
	q.TypedRateLimitingInterface.Add(k)
}

// AddLow queues k at the low level, unless it waits already (at either).
func (q *Priority[K]) AddLow(k K) {
	q.levels.wish(k, false)
	q.TypedRateLimitingInterface.Add(k)
}

// levels is the storage of a Priority queue (a workqueue.Queue): two
// FIFOs. The work queue tells it only which key is pushed or touched (added
// again while waiting); the level each Add asked for is noted in want
// before, as the highest asked for since the key was last pushed or
// touched, so that adds made while a key is being processed count when
// Done pushes it again. A key pushed with no wish (AddAfter, AddRateLimited
// come through the work queue's own Add) goes high.
type levels[K comparable] struct {
	mu   sync.Mutex // wish runs outside the work queue's lock
	want map[K]bool // true: high

	// The rest is used under the work queue's lock only.
	fifo [2][]entry[K] // [0] low, [1] high; entries moved up stay behind, stale
	at   map[K]entry[K]
	seq  uint64
}

// entry is a key in a FIFO; it counts only while at[key] is the same entry.
type entry[K comparable] struct {
	key  K
	high bool
	seq  uint64
}

func (l *levels[K]) wish(k K, high bool) {
	l.mu.Lock()
	l.want[k] = l.want[k] || high
	l.mu.Unlock()
}

// wished takes the level asked for k: ok is false when none was.
func (l *levels[K]) wished(k K) (high, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	high, ok = l.want[k]
	delete(l.want, k)
	return high, ok
}

// Push implements workqueue.Queue.
func (l *levels[K]) Push(k K) {
	high, ok := l.wished(k)
	l.put(k, high || !ok)
}

// Touch implements workqueue.Queue: k, waiting, was added again.
func (l *levels[K]) Touch(k K) {
	if high, _ := l.wished(k); high && !l.at[k].high {
		l.put(k, true)
	}
}

func (l *levels[K]) put(k K, high bool) {
	l.seq++
	e := entry[K]{key: k, high: high, seq: l.seq}
	l.at[k] = e
	i := 0
	if high {
		i = 1
	}
	l.fifo[i] = append(l.fifo[i], e)
}

// Len implements workqueue.Queue.
func (l *levels[K]) Len() int { return len(l.at) }

// Pop implements workqueue.Queue; the work queue calls it when Len > 0.
func (l *levels[K]) Pop() K {
	for i := 1; i >= 0; i-- {
		for len(l.fifo[i]) > 0 {
			e := l.fifo[i][0]
			l.fifo[i][0] = entry[K]{}
			l.fifo[i] = l.fifo[i][1:]
			if l.at[e.key] == e {
				delete(l.at, e.key)
				return e.key
			}
		}
	}
	var zero K
	return zero
}
