package ctrlsyncer

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// The builder's untyped predicates see what a typed one would: an update
// of the same generation is filtered by GenerationChangedPredicate, one of
// another passes; a delete keeps DeleteStateUnknown.
func TestTypedPredicatesSeeTheEvents(t *testing.T) {
	at := func(gen int64) *shopv1alpha1.Widget {
		return &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Name: "w", Generation: gen}}
	}
	p := typed[*shopv1alpha1.Widget]([]predicate.Predicate{predicate.GenerationChangedPredicate{}})[0]
	if p.Update(event.TypedUpdateEvent[*shopv1alpha1.Widget]{ObjectOld: at(1), ObjectNew: at(1)}) {
		t.Error("an update of the same generation passed GenerationChangedPredicate")
	}
	if !p.Update(event.TypedUpdateEvent[*shopv1alpha1.Widget]{ObjectOld: at(1), ObjectNew: at(2)}) {
		t.Error("an update of a new generation was filtered")
	}
	var seen event.DeleteEvent
	funcs := typed[*shopv1alpha1.Widget]([]predicate.Predicate{predicate.Funcs{DeleteFunc: func(e event.DeleteEvent) bool { seen = e; return false }}})[0]
	if funcs.Delete(event.TypedDeleteEvent[*shopv1alpha1.Widget]{Object: at(1), DeleteStateUnknown: true}) || !seen.DeleteStateUnknown || seen.Object.GetName() != "w" {
		t.Errorf("the delete the predicate saw: %+v", seen)
	}
}
