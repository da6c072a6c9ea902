package ctrlsyncer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// matching returns the objects of namespace ns (every namespace for "")
// that a field selector picks: all without one; with one, those that have
// every field's value in the syncer's index of that field's name, as
// controller-runtime's cache serves MatchingFields from the indexes
// IndexField declared. Only exact matches are served. Neither walks more
// than the namespace's objects or the first field's.
func (s *store) matching(ns string, sel fields.Selector) ([]client.Object, error) {
	if sel == nil || sel.Empty() {
		return s.list(ns), nil
	}
	reqs := sel.Requirements()
	for _, req := range reqs {
		if req.Operator != selection.Equals && req.Operator != selection.DoubleEquals {
			return nil, fmt.Errorf("ctrlsyncer: field selector %q: only exact matches (field=value) are served, each by the syncer's index of that name", sel)
		}
		if !s.hasIndex(req.Field) {
			return nil, fmt.Errorf("ctrlsyncer: field selector %q: the syncer of %s has no index named %q (declare it with a +syncer-gen:index marker, runtime.WithIndex, or ctrlsyncer.FieldIndexer before the syncer is made)", sel, s.gr, req.Field)
		}
	}
	objs := s.byIndex(ns, reqs[0].Field, reqs[0].Value)
	for _, req := range reqs[1:] {
		if len(objs) == 0 {
			break
		}
		also := map[runtime.Key]bool{}
		for _, o := range s.byIndex(ns, req.Field, req.Value) {
			also[runtime.KeyOf(o)] = true
		}
		kept := objs[:0]
		for _, o := range objs {
			if also[runtime.KeyOf(o)] {
				kept = append(kept, o)
			}
		}
		objs = kept
	}
	return objs, nil
}
