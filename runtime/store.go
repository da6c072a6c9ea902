package runtime

import (
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/syncer-gen/syncer-gen/runtime/internal/memsize"
)

// Key names an object in a store. Namespace is empty for cluster-scoped objects.
type Key struct {
	Namespace string
	Name      string
}

// String returns "namespace/name", or "name" for cluster-scoped objects.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}

// KeyOf returns the key of obj.
func KeyOf(obj Object) Key { return Key{Namespace: obj.GetNamespace(), Name: obj.GetName()} }

// entry is one stored object, the resync epoch in which it was last seen
// and the bytes it was estimated to hold when stored.
type entry[T Object] struct {
	obj   T
	epoch uint64
	bytes int64
}

// Store is a Syncer's typed local copy, safe for concurrent readers. Objects
// handed out are shared with the store and with handlers: do not modify them.
type Store[T Object] struct {
	mu       sync.RWMutex
	items    map[Key]entry[T]
	indexers map[string]func(any) []string
	indexes  map[string]map[string]map[Key]struct{} // index name -> value -> keys
	byNS     map[string]map[string]struct{}         // namespace -> names; nil for a cluster-scoped resource (see storens.go)
	sizer    memsize.Sizer[T]
	bytes    atomic.Int64 // the sum of the entries' bytes; written under mu
}

// slotBytes is what the store's map takes for one object: its key and
// entry, a control byte, at the map's load of 7/8.
func slotBytes[T Object]() int64 {
	return int64(unsafe.Sizeof(Key{})+unsafe.Sizeof(entry[T]{})+1) * 8 / 7
}

func newStore[T Object](indexers map[string]func(any) []string, namespaced bool) *Store[T] {
	s := &Store[T]{items: map[Key]entry[T]{}, indexers: indexers, sizer: memsize.For[T]()}
	if namespaced {
		s.byNS = map[string]map[string]struct{}{}
	}
	if len(indexers) > 0 {
		s.indexes = make(map[string]map[string]map[Key]struct{}, len(indexers))
		for name := range indexers {
			s.indexes[name] = map[string]map[Key]struct{}{}
		}
	}
	return s
}

// maxReserve bounds what reserve makes room for: a count comes from the
// server, and a wrong one must not cost more than a few MiB.
const maxReserve = 1 << 17

// reserve makes room for n objects in a store that holds none, so that the
// first sync, whose size the server told, does not grow the map step by
// step (each step leaves the smaller map as garbage, which raises the
// heap's peak).
func (s *Store[T]) reserve(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) == 0 && n > 0 {
		s.items = make(map[Key]entry[T], min(n, maxReserve))
	}
}

// Get returns the object with the given namespace and name.
func (s *Store[T]) Get(namespace, name string) (T, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.items[Key{namespace, name}]
	return e.obj, ok
}

// Bytes returns an estimate of the heap bytes the store holds: each
// object's (its struct and everything reachable from it, each allocation
// rounded up as Go's allocator does; see runtime/internal/memsize), and a
// map slot per object. It is kept as objects come and go, estimated once
// as each is stored, and costs nothing to read. Not counted: the indexes,
// the map's spare room, and what handlers' queues hold. Metrics.StoreBytes
// reports it after every change.
func (s *Store[T]) Bytes() int64 { return s.bytes.Load() }

// Len returns the number of objects.
func (s *Store[T]) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.items)
}

// List returns every object, in no particular order.
func (s *Store[T]) List() []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.listLocked()
}

// Keys returns the keys of every object, sorted.
func (s *Store[T]) Keys() []Key {
	s.mu.RLock()
	out := make([]Key, 0, len(s.items))
	for k := range s.items {
		out = append(out, k)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ByIndex returns the objects whose index named index has value. It panics
// on an index that was not declared, like a map of a missing type would:
// that is a programming error, not a runtime condition.
func (s *Store[T]) ByIndex(index, value string) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.indexes[index]
	if !ok {
		panic("runtime.Store: no index named " + index)
	}
	keys := idx[value]
	out := make([]T, 0, len(keys))
	for k := range keys {
		out = append(out, s.items[k].obj)
	}
	return out
}

// HasIndex tells whether the store keeps an index named index.
func (s *Store[T]) HasIndex(index string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.indexes[index]
	return ok
}

// IndexValues returns the values present in the named index.
func (s *Store[T]) IndexValues(index string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.indexes[index]))
	for v := range s.indexes[index] {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// get returns the entry for k.
func (s *Store[T]) get(k Key) (entry[T], bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.items[k]
	return e, ok
}

// put stores obj under k, seen in epoch, and returns the number of objects.
func (s *Store[T]) put(k Key, obj T, epoch uint64) int {
	return s.putSized(k, obj, epoch, s.size(obj)) // sized before the lock: readers need not wait for it
}

// size is what obj counts for in Bytes: what it holds and its map slot.
// It may be called from any goroutine: a warm start sizes the snapshot's
// objects while it loads them (see loadSnapshot).
func (s *Store[T]) size(obj T) int64 { return s.sizer.Of(obj) + slotBytes[T]() }

// putSized is put of an object whose size is known.
func (s *Store[T]) putSized(k Key, obj T, epoch uint64, size int64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	delta := size
	if old, ok := s.items[k]; ok {
		s.unindex(k, old.obj)
		delta -= old.bytes
	} else {
		s.addToNamespace(k)
	}
	s.items[k] = entry[T]{obj: obj, epoch: epoch, bytes: size}
	s.bytes.Add(delta)
	s.index(k, obj)
	return len(s.items)
}

// mark records that k was seen, unchanged, in epoch.
func (s *Store[T]) mark(k Key, epoch uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[k]; ok {
		e.epoch = epoch
		s.items[k] = e
	}
}

// remove deletes k and returns what was stored and the number of objects left.
func (s *Store[T]) remove(k Key) (T, bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[k]
	if ok {
		s.drop(k, e)
	}
	return e.obj, ok, len(s.items)
}

// sweep removes every object last seen before epoch and returns them and
// the number of objects left.
func (s *Store[T]) sweep(epoch uint64) ([]T, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []T
	for k, e := range s.items {
		if e.epoch < epoch {
			s.drop(k, e)
			gone = append(gone, e.obj)
		}
	}
	return gone, len(s.items)
}

// drop deletes k, stored as e, from the map and every index. s.mu is held.
func (s *Store[T]) drop(k Key, e entry[T]) {
	delete(s.items, k)
	s.bytes.Add(-e.bytes)
	s.unindex(k, e.obj)
	s.removeFromNamespace(k)
}

func (s *Store[T]) index(k Key, obj T) {
	for name, f := range s.indexers {
		idx := s.indexes[name]
		for _, v := range f(obj) {
			set := idx[v]
			if set == nil {
				set = map[Key]struct{}{}
				idx[v] = set
			}
			set[k] = struct{}{}
		}
	}
}

func (s *Store[T]) unindex(k Key, obj T) {
	for name, f := range s.indexers {
		idx := s.indexes[name]
		for _, v := range f(obj) {
			if set := idx[v]; set != nil {
				delete(set, k)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
	}
}
