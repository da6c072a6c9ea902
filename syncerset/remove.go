package syncerset

import (
	"context"
	"fmt"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Remove stops sy, a syncer of the set, and takes it out of the set, as
// controller-runtime's RemoveInformer removes an informer from its cache:
// its Run returns, its handlers end, and its store is emptied, its memory
// given back (runtime.Syncer.Close), even where sy is still referenced.
// Add with its resource and options then makes a new syncer. Remove
// returns once sy's Run has returned (with a running set), or with ctx's
// error when ctx ends first (a handler blocked in a call); sy is out of
// the set either way. A syncer that is not in the set is an error.
func Remove[T runtime.Object](ctx context.Context, s *Set, sy *runtime.Syncer[T]) error {
	s.mu.Lock()
	var m *member
	for i, x := range s.order {
		if x.any == any(sy) {
			m = x
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			delete(s.members, x.key)
			break
		}
	}
	s.mu.Unlock()
	if m == nil {
		return fmt.Errorf("syncerset: Remove: the syncer of %s is not in the set", sy.Resource())
	}
	return sy.Close(ctx)
}
