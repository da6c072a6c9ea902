package writelog

import "sync"

// Log holds the writes in flight and, by key, the chain of writes answered
// but not yet seen. Its zero value is not usable: see New. Its methods are
// safe for concurrent use.
type Log[K comparable, W any] struct {
	seen func(K, W) bool

	mu      sync.Mutex
	next    uint64
	flights map[uint64]Flight[K]
	chains  map[K][]item[W]
	n       int // writes in chains
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

// Chain is the pending writes of one key, oldest first: Writes[len-1] is
// the last, and the chain is seen when it is.
type Chain[K comparable, W any] struct {
	Key    K
	Writes []W
	last   uint64 // the id of Writes[len-1]
}

// Last returns the chain's last write.
func (c Chain[K, W]) Last() W { return c.Writes[len(c.Writes)-1] }

// minPrune is the size below which Record does not prune.
const minPrune = 64

// New returns an empty log. seen tells whether the last write of a chain
// has been seen by the store, and with it every write of the chain before
// it: Prune forgets those chains, and Record prunes by itself when the log
// has grown to twice its size after the last prune.
func New[K comparable, W any](seen func(K, W) bool) *Log[K, W] {
	return &Log[K, W]{seen: seen, flights: map[uint64]Flight[K]{}, chains: map[K][]item[W]{}, pruneAt: minPrune}
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

// Record appends to key's chain the write that next makes from the chain's
// last write (ok false when the chain is empty), unless next says there is
// none to record. next runs under the log's lock, so that two Records of
// one key chain in the order they took it: it must not call the log.
func (l *Log[K, W]) Record(key K, next func(prev W, ok bool) (W, bool)) {
	l.mu.Lock()
	chain := l.chains[key]
	var prev W
	if len(chain) > 0 {
		prev = chain[len(chain)-1].w
	}
	w, record := next(prev, len(chain) > 0)
	if !record {
		l.mu.Unlock()
		return
	}
	l.chains[key] = append(chain, item[W]{l.next, w})
	l.next++
	l.n++
	grown := l.n >= l.pruneAt
	l.mu.Unlock()
	if grown {
		l.Prune(l.Pending(nil))
	}
}

// Pending returns the chains of the keys keep accepts (every key when keep
// is nil).
func (l *Log[K, W]) Pending(keep func(K) bool) []Chain[K, W] {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Chain[K, W]
	for k, items := range l.chains {
		if keep != nil && !keep(k) {
			continue
		}
		c := Chain[K, W]{Key: k, Writes: make([]W, len(items)), last: items[len(items)-1].id}
		for i, it := range items {
			c.Writes[i] = it.w
		}
		out = append(out, c)
	}
	return out
}

// Prune forgets those of chains (from Pending) whose last write the store
// has seen, asking seen without holding the log's lock, and returns those
// it has not. A write recorded after Pending stays: it was not asked about.
func (l *Log[K, W]) Prune(chains []Chain[K, W]) []Chain[K, W] {
	var gone []Chain[K, W]
	unseen := chains[:0:0]
	for _, c := range chains {
		if l.seen(c.Key, c.Last()) {
			gone = append(gone, c)
		} else {
			unseen = append(unseen, c)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range gone {
		items := l.chains[c.Key]
		i := 0
		for i < len(items) && items[i].id <= c.last {
			i++
		}
		l.n -= i
		if i == len(items) {
			delete(l.chains, c.Key)
		} else {
			l.chains[c.Key] = items[i:]
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
