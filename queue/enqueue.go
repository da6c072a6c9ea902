package queue

import (
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/util/workqueue"
)

// KeyFunc maps an object to the keys to enqueue for it: none, its own, its
// owner's.
type KeyFunc[T runtime.Object, K comparable] func(obj T) []K

// Enqueue returns a handler that adds to q the keys key gives for every
// object added, updated or deleted (observed or inferred). Failures
// (OnError) are not enqueued: the syncer retries by itself.
//
// When q has an AddLow method (a Priority queue), the objects of a
// resync's list (OnInitialAdd: the first sync, a relist, a warm start's)
// and the updates of a resync period (old and new at the same
// resourceVersion) go there, at the low priority controller-runtime gives
// them; every live change goes to Add.
func Enqueue[T runtime.Object, K comparable](q workqueue.TypedInterface[K], key KeyFunc[T, K]) runtime.Handler[T] {
	low := q.Add
	if p, ok := q.(interface{ AddLow(K) }); ok {
		low = p.AddLow
	}
	add := func(to func(K), obj T) {
		for _, k := range key(obj) {
			to(k)
		}
	}
	return runtime.HandlerFuncs[T]{
		AddFunc:        func(obj T) { add(q.Add, obj) },
		InitialAddFunc: func(obj T) { add(low, obj) },
		UpdateFunc: func(old, new T) {
			to := q.Add
			if old.GetResourceVersion() == new.GetResourceVersion() { // a resync period's
				to = low
			}
			add(to, old) // an owner that changed: both hear of it
			add(to, new)
		},
		DeleteFunc: func(obj T, _ runtime.Deletion) { add(q.Add, obj) },
	}
}
