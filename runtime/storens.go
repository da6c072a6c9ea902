package runtime

// The store of a namespaced resource keeps the names of each namespace's
// objects, so that the objects of one namespace are found without a scan
// of the store: a reader's list of one namespace (ctrlsyncer's List with
// InNamespace, as controller-runtime's cache and client-go's listers serve
// it from their namespace index), a resync of one namespace of a Syncer
// over several (WithNamespaces), which sweeps only that namespace's
// objects, and a namespace removed from such a Syncer. It costs a map
// slot of a name per object (about 20 bytes: the name's bytes are the
// object's), not counted in Bytes, as the other indexes are not.

// addToNamespace notes k in its namespace's names. s.mu is held.
func (s *Store[T]) addToNamespace(k Key) {
	if s.byNS == nil {
		return
	}
	names := s.byNS[k.Namespace]
	if names == nil {
		names = map[string]struct{}{}
		s.byNS[k.Namespace] = names
	}
	names[k.Name] = struct{}{}
}

// removeFromNamespace forgets k in its namespace's names. s.mu is held.
func (s *Store[T]) removeFromNamespace(k Key) {
	if s.byNS == nil {
		return
	}
	if names := s.byNS[k.Namespace]; names != nil {
		delete(names, k.Name)
		if len(names) == 0 {
			delete(s.byNS, k.Namespace)
		}
	}
}

// InNamespace returns the objects of namespace ns, in no particular order,
// from the store's namespace index: its cost follows the namespace's
// objects, not the store's. For a cluster-scoped resource, every object is
// of namespace "".
func (s *Store[T]) InNamespace(ns string) []T {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.byNS == nil {
		if ns != "" {
			return nil
		}
		return s.listLocked()
	}
	names := s.byNS[ns]
	out := make([]T, 0, len(names))
	for name := range names {
		out = append(out, s.items[Key{ns, name}].obj)
	}
	return out
}

// ByIndexInNamespace returns the objects of namespace ns (every namespace
// for "") whose index named index has value, walking the smaller of the
// index's value and the namespace. It panics on an undeclared index, as
// ByIndex does.
func (s *Store[T]) ByIndexInNamespace(ns, index, value string) []T {
	if ns == "" {
		return s.ByIndex(index, value)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.indexes[index]
	if !ok {
		panic("runtime.Store: no index named " + index)
	}
	keys := idx[value]
	var out []T
	if names := s.byNS[ns]; s.byNS != nil && len(names) < len(keys) {
		f := s.indexers[index]
		for name := range names {
			o := s.items[Key{ns, name}].obj
			for _, v := range f(o) {
				if v == value {
					out = append(out, o)
					break
				}
			}
		}
		return out
	}
	for k := range keys {
		if k.Namespace == ns {
			out = append(out, s.items[k].obj)
		}
	}
	return out
}

// listLocked returns every object; s.mu is held.
func (s *Store[T]) listLocked() []T {
	out := make([]T, 0, len(s.items))
	for _, e := range s.items {
		out = append(out, e.obj)
	}
	return out
}

// namespaceKeys returns the keys of namespace ns's objects; s.mu is held.
func (s *Store[T]) namespaceKeys(ns string) []Key {
	if s.byNS == nil {
		var out []Key
		for k := range s.items {
			if k.Namespace == ns {
				out = append(out, k)
			}
		}
		return out
	}
	out := make([]Key, 0, len(s.byNS[ns]))
	for name := range s.byNS[ns] {
		out = append(out, Key{ns, name})
	}
	return out
}

// sweepNamespace removes every object of namespace ns last seen before
// epoch and returns them and the number of objects left: the sweep of a
// resync of one namespace.
func (s *Store[T]) sweepNamespace(ns string, epoch uint64) ([]T, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var gone []T
	for _, k := range s.namespaceKeys(ns) {
		if e := s.items[k]; e.epoch < epoch {
			s.drop(k, e)
			gone = append(gone, e.obj)
		}
	}
	return gone, len(s.items)
}

// removeNamespace removes every object of namespace ns and returns them
// and the number of objects left.
func (s *Store[T]) removeNamespace(ns string) ([]T, int) {
	return s.sweepNamespace(ns, ^uint64(0))
}

// release empties the store and gives its memory back: new maps, so that
// the old ones, grown to the largest the store ever was, go too.
func (s *Store[T]) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.items = map[Key]entry[T]{}
	for name := range s.indexes {
		s.indexes[name] = map[string]map[Key]struct{}{}
	}
	if s.byNS != nil {
		s.byNS = map[string]map[string]struct{}{}
	}
	s.bytes.Store(0)
}

// sweepOne removes the object of k if it was last seen before epoch, and
// returns it (or none) and the number of objects left.
func (s *Store[T]) sweepOne(k Key, epoch uint64) ([]T, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[k]; ok && e.epoch < epoch {
		s.drop(k, e)
		return []T{e.obj}, len(s.items)
	}
	return nil, len(s.items)
}
