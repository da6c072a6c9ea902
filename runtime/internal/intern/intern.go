package intern

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

const (
	// MaxLen is the longest string interned.
	MaxLen = 64
	// MaxStrings is how many strings the pool holds at most.
	MaxStrings = 4096
	slabSize   = 16 << 10
)

// Key is an interned key, with the value last seen under it.
type Key struct {
	s    string // in a slab
	pool *Pool

	mu   sync.Mutex
	last string // the string value last seen under the key, "" for none
	box  any    // last boxed, when it lies in a slab; nil when not
}

// String returns the key.
func (k *Key) String() string { return k.s }

// Pool is a set of interned keys and values.
type Pool struct {
	max    int // keys and values at most
	mu     sync.RWMutex
	keys   map[string]*Key
	values map[string]any // interned values, boxed once
	n      int            // keys and values
	free   []byte         // what is left of the current slab
}

// NewPool returns a pool of at most max strings.
func NewPool(max int) *Pool { return &Pool{max: max} }

// process is the process's pool, which KeyOf uses.
var process = NewPool(MaxStrings)

// span is a slab's addresses, [start, end).
type span struct{ start, end uintptr }

// slabs are every pool's slabs' spans, sorted; replaced, never changed.
var slabs atomic.Pointer[[]span]

// kept holds every slab, so that the memory of a span is never another
// allocation's, even after a pool is dropped (the process's never is;
// tests make others).
var kept [][]byte

// KeyOf returns the interned key of b in the process's pool (see
// Pool.KeyOf).
func KeyOf(b []byte) *Key { return process.KeyOf(b) }

// KeyOf returns the interned key of b, adding it on its first request; nil
// when b is longer than MaxLen or the pool is full.
func (p *Pool) KeyOf(b []byte) *Key {
	if len(b) > MaxLen {
		return nil
	}
	p.mu.RLock()
	k := p.keys[string(b)]
	p.mu.RUnlock()
	if k != nil {
		return k
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if k = p.keys[string(b)]; k != nil {
		return k
	}
	s, ok := p.store(b)
	if !ok {
		return nil
	}
	if p.keys == nil {
		p.keys = map[string]*Key{}
	}
	k = &Key{s: s, pool: p}
	p.keys[s] = k
	return k
}

// Value returns b as a string value under k, boxed: the interned one when
// b is the value k had last time too (a value that repeats from object to
// object), else a new string. k may be nil: b is then always new. It never
// waits: where another goroutine is at k, b is new.
func (k *Key) Value(b []byte) any {
	if k == nil || len(b) == 0 || len(b) > MaxLen || !k.mu.TryLock() {
		return string(b) // another decoder is at this key: no waiting for it
	}
	defer k.mu.Unlock()
	if k.last == string(b) && k.last != "" {
		if k.box != nil {
			return k.box
		}
		if box := k.pool.value(b); box != nil { // the second time in a row: interned
			k.last, k.box = box.(string), box
			return box
		}
	}
	s := string(b)
	k.last, k.box = s, nil
	return s
}

// value returns the interned value b, boxed, adding it on its first
// request; nil when the pool is full.
func (p *Pool) value(b []byte) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.values[string(b)]; ok {
		return v
	}
	s, ok := p.store(b)
	if !ok {
		return nil
	}
	if p.values == nil {
		p.values = map[string]any{}
	}
	var box any = s
	p.values[s] = box
	return box
}

// slabsMu orders the updates of slabs and kept.
var slabsMu sync.Mutex

// store copies b into a slab and counts it; false when the pool is full.
// p.mu is held.
func (p *Pool) store(b []byte) (string, bool) {
	if p.n >= p.max {
		return "", false
	}
	if len(b) > len(p.free) {
		p.free = make([]byte, slabSize)
		start := uintptr(unsafe.Pointer(unsafe.SliceData(p.free)))
		slabsMu.Lock()
		spans := append(slices.Clone(deref(slabs.Load())), span{start, start + slabSize})
		slices.SortFunc(spans, func(a, b span) int {
			if a.start < b.start {
				return -1
			}
			return 1
		})
		slabs.Store(&spans)
		kept = append(kept, p.free)
		slabsMu.Unlock()
	}
	n := copy(p.free, b)
	s := unsafe.String(unsafe.SliceData(p.free), n)
	p.free = p.free[n:]
	p.n++
	return s, true
}

func deref(p *[]span) []span {
	if p == nil {
		return nil
	}
	return *p
}

// Shared tells whether s lies in the pool's slabs: an interned string,
// which many objects may hold and the pool keeps.
func Shared(s string) bool {
	if s == "" {
		return false
	}
	spans := slabs.Load()
	if spans == nil {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	i, _ := slices.BinarySearchFunc(*spans, p, func(sp span, p uintptr) int {
		if sp.end <= p {
			return -1
		}
		if sp.start > p {
			return 1
		}
		return 0
	})
	return i < len(*spans) && (*spans)[i].start <= p && p < (*spans)[i].end
}
