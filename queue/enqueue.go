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
func Enqueue[T runtime.Object, K comparable](q workqueue.TypedInterface[K], key KeyFunc[T, K]) runtime.Handler[T] {
	add := func(obj T) {
		for _, k := range key(obj) {
			q.Add(k)
		}
	}
	return runtime.HandlerFuncs[T]{
		AddFunc: add,
		UpdateFunc: func(old, new T) {
			add(old) // an owner that changed: both hear of it
			add(new)
		},
		DeleteFunc: func(obj T, _ runtime.Deletion) { add(obj) },
	}
}
