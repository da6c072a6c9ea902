package ctrlsyncer

import (
	"errors"
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
// than the namespace's objects or the first field's. Its errors, and when
// it gives them, are the cache's (its CacheReader's byIndexes): a
// selector that is not a list of exact matches (an empty one among them),
// the first field's index missing, or a later field's once the fields
// before it matched objects.
func (s *store) matching(ns string, sel fields.Selector) ([]client.Object, error) {
	if sel == nil {
		return s.list(ns), nil
	}
	reqs := sel.Requirements()
	if len(reqs) == 0 {
		return nil, errNonExact
	}
	for _, req := range reqs {
		if req.Operator != selection.Equals && req.Operator != selection.DoubleEquals {
			return nil, errNonExact
		}
	}
	if !s.hasIndex(reqs[0].Field) {
		//lint:ignore ST1005 client-go's words, which the cache gives
		return nil, fmt.Errorf("Index with name field:%s does not exist", reqs[0].Field)
	}
	objs := s.byIndex(ns, reqs[0].Field, reqs[0].Value)
	for _, req := range reqs[1:] {
		if len(objs) == 0 {
			break
		}
		if !s.hasIndex(req.Field) {
			return nil, fmt.Errorf("index with name field:%s does not exist", req.Field)
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

// errNonExact is the cache's error for a field selector it does not serve.
var errNonExact = errors.New("non-exact field matches are not supported by the cache")
