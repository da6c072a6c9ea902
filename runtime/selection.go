package runtime

import (
	"k8s.io/apimachinery/pkg/labels"
)

// Selection picks objects of a store, as a List reads them: those of one
// namespace, whose labels match a selector, and that have given values in
// named indexes. Its zero value picks every object.
type Selection struct {
	// Namespace picks the objects of one namespace; "" picks all.
	Namespace string
	// Labels picks the objects whose labels match; nil picks all.
	Labels labels.Selector
	// Indexes picks the objects that have, in each index named by a key
	// (WithIndex), the value it maps to.
	Indexes map[string]string
}

// Select returns the objects sel picks, in no particular order. An index
// sel names that the store does not keep panics, as ByIndex does.
func (s *Store[T]) Select(sel Selection) []T {
	var objs []T
	first := ""
	for name, v := range sel.Indexes {
		if first == "" {
			first = name
			objs = s.ByIndex(name, v)
		} else if _, ok := s.indexers[name]; !ok {
			panic("runtime.Store: no index named " + name)
		}
	}
	if first == "" {
		objs = s.List()
	}
	out := objs[:0]
	for _, o := range objs {
		if s.picks(sel, o, first) {
			out = append(out, o)
		}
	}
	return out
}

// picks tells whether sel picks obj, leaving out the index named skip
// (the one obj was found by). An index the store does not keep is no
// test (Select refuses it first): a write of obj then counts as one that
// may change what sel picks.
func (s *Store[T]) picks(sel Selection, obj T, skip string) bool {
	if sel.Namespace != "" && obj.GetNamespace() != sel.Namespace {
		return false
	}
	if sel.Labels != nil && !sel.Labels.Empty() && !sel.Labels.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	for name, v := range sel.Indexes {
		if name == skip {
			continue
		}
		f, ok := s.indexers[name]
		if !ok {
			continue
		}
		found := false
		for _, got := range f(obj) {
			if got == v {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
