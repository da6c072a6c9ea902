package writelog

import "sync"

// Log holds the writes in flight and the writes answered but not yet seen,
// by key. Its zero value is not usable: see New. Its methods are safe for
// concurrent use.
type Log[K comparable, W any] struct {
	seen func(K, W) bool

	mu      sync.Mutex
	next    uint64
	flights map[uint64]Flight[K]
	pending map[K][]item[W]
	n       int // writes in pending
	pruneAt int // Record prunes when n reaches it
}

type item[W any] struct {
	id uint64
	w  W
}

// Flight is a write in flight: Done is closed when it ends.
type Flight[K comparable] struct {
	Key  K
	Done <-chan struct{}
}

// Entry is one pending write and its key.
type Entry[K comparable, W any] struct {
	Key   K
	Write W
	id    uint64
}

// minPrune is the size below which Record does not prune.
const minPrune = 64

// New returns an empty log. seen tells whether a recorded write has been
// seen by the store: Prune forgets those, and Record prunes by itself when
// the log has grown to twice its size after the last prune.
func New[K comparable, W any](seen func(K, W) bool) *Log[K, W] {
	return &Log[K, W]{seen: seen, flights: map[uint64]Flight[K]{}, pending: map[K][]item[W]{}, pruneAt: minPrune}
}

// Begin notes a write of key under way and returns the function that ends
// it, to be called once whatever happened (more calls do nothing).
func (l *Log[K, W]) Begin(key K) (end func()) {
	done := make(chan struct{})
	l.mu.Lock()
	id := l.next
	l.next++
	l.flights[id] = Flight[K]{Key: key, Done: done}
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.flights, id)
			l.mu.Unlock()
			close(done)
		})
	}
}

// Flights returns the writes in flight now whose key match accepts (every
// one when match is nil).
func (l *Log[K, W]) Flights(match func(K) bool) []Flight[K] {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Flight[K]
	for _, f := range l.flights {
		if match == nil || match(f.Key) {
			out = append(out, f)
		}
	}
	return out
}

// Record notes w, an answered write of key, pending until a prune finds it
// seen.
func (l *Log[K, W]) Record(key K, w W) {
	l.mu.Lock()
	l.pending[key] = append(l.pending[key], item[W]{l.next, w})
	l.next++
	l.n++
	grown := l.n >= l.pruneAt
	l.mu.Unlock()
	if grown {
		l.Prune(l.Pending(nil))
	}
}

// Pending returns the pending writes of the keys keep accepts (every key
// when keep is nil), those of one key in the order they were recorded.
func (l *Log[K, W]) Pending(keep func(K) bool) []Entry[K, W] {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry[K, W]
	for k, items := range l.pending {
		if keep != nil && !keep(k) {
			continue
		}
		for _, it := range items {
			out = append(out, Entry[K, W]{k, it.w, it.id})
		}
	}
	return out
}

// Prune forgets those of entries (from Pending) that the store has seen,
// asking seen without holding the log's lock, and returns those it has not.
func (l *Log[K, W]) Prune(entries []Entry[K, W]) []Entry[K, W] {
	var gone map[uint64]bool
	unseen := entries[:0:0]
	for _, e := range entries {
		if l.seen(e.Key, e.Write) {
			if gone == nil {
				gone = map[uint64]bool{}
			}
			gone[e.id] = true
		} else {
			unseen = append(unseen, e)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(gone) > 0 {
		for _, e := range entries {
			if !gone[e.id] {
				continue
			}
			items := l.pending[e.Key]
			for i, it := range items {
				if it.id == e.id {
					items = append(items[:i], items[i+1:]...)
					l.n--
					break
				}
			}
			if len(items) == 0 {
				delete(l.pending, e.Key)
			} else {
				l.pending[e.Key] = items
			}
		}
	}
	l.pruneAt = max(2*l.n, minPrune)
	return unseen
}

// Len returns the number of pending writes.
func (l *Log[K, W]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}
