package ctrlsyncer

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// typed turns predicates of client.Object (predicate.Predicate, what the
// builder's WithPredicates takes) into predicates of T.
func typed[T client.Object](preds []predicate.Predicate) []predicate.TypedPredicate[T] {
	out := make([]predicate.TypedPredicate[T], len(preds))
	for i, p := range preds {
		out[i] = objectPredicate[T]{p}
	}
	return out
}

type objectPredicate[T client.Object] struct{ p predicate.Predicate }

func (o objectPredicate[T]) Create(e event.TypedCreateEvent[T]) bool {
	return o.p.Create(event.CreateEvent{Object: e.Object})
}

func (o objectPredicate[T]) Delete(e event.TypedDeleteEvent[T]) bool {
	return o.p.Delete(event.DeleteEvent{Object: e.Object, DeleteStateUnknown: e.DeleteStateUnknown})
}

func (o objectPredicate[T]) Update(e event.TypedUpdateEvent[T]) bool {
	return o.p.Update(event.UpdateEvent{ObjectOld: e.ObjectOld, ObjectNew: e.ObjectNew})
}

func (o objectPredicate[T]) Generic(e event.TypedGenericEvent[T]) bool {
	return o.p.Generic(event.GenericEvent{Object: e.Object})
}
