package ctrlsyncer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// controller-runtime's EnqueueRequestForObject and
// GenerationChangedPredicate work unchanged on the syncer's events:
// creates enqueue, an update of status alone (same generation) is
// filtered, one of spec enqueues, and a deletion the syncer inferred comes
// as a delete whose state is unknown. WaitForSync waits for OnSync.
func TestSourceFeedsControllerRuntimeHandlers(t *testing.T) {
	ws, d := shopsyncers.NewWidgetDriver()
	var deletes []event.TypedDeleteEvent[*shopv1alpha1.Widget]
	funcs := handler.TypedFuncs[*shopv1alpha1.Widget, reconcile.Request]{
		DeleteFunc: func(_ context.Context, e event.TypedDeleteEvent[*shopv1alpha1.Widget], _ workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			deletes = append(deletes, e)
		},
	}
	q := newQueue()
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	enqueue := ctrlsyncer.Source(ws.Syncer, &handler.TypedEnqueueRequestForObject[*shopv1alpha1.Widget]{},
		predicate.TypedGenerationChangedPredicate[*shopv1alpha1.Widget]{})
	observe := ctrlsyncer.Source[*shopv1alpha1.Widget, reconcile.Request](ws.Syncer, funcs)
	for _, src := range []interface {
		Start(context.Context, workqueue.TypedRateLimitingInterface[reconcile.Request]) error
	}{enqueue, observe} {
		if err := src.Start(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := enqueue.Start(ctx, q); err == nil {
		t.Error("a source started twice: no error")
	}
	d.Add(widget("ns", "a", "1", 1, "alice"), widget("ns", "b", "1", 1, "bob"))
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	err := enqueue.WaitForSync(short)
	if err == nil || !strings.Contains(err.Error(), "widgets.shop.example.com/v1alpha1: no failure yet, still receiving: 2 objects") {
		t.Errorf("WaitForSync before the sync: %v; want an error that says how far the sync has come", err)
	}
	if got := fmt.Sprint(enqueue); got != "syncer source: widgets.shop.example.com/v1alpha1" {
		t.Errorf("the source says it is %q; want it to name its resource", got)
	}
	cancelled, cancelNow := context.WithCancel(ctx)
	cancelNow()
	if err := enqueue.WaitForSync(cancelled); err != nil {
		t.Errorf("WaitForSync with a cancelled context (a Manager stopping): %v; want nil, as controller-runtime's sources give", err)
	}
	d.Sync()
	if err := enqueue.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(drain(q)); got != "[ns/a ns/b]" {
		t.Errorf("after the sync: %s", got)
	}
	status := widget("ns", "a", "2", 1, "alice")
	status.Status.Phase = "Ready"
	d.Update(status)
	if got := drain(q); len(got) != 0 {
		t.Errorf("a status update enqueued %v through GenerationChangedPredicate", got)
	}
	d.Update(widget("ns", "a", "3", 2, "carol"))
	if got := fmt.Sprint(drain(q)); got != "[ns/a]" {
		t.Errorf("a spec update: %s", got)
	}
	d.Resync(widget("ns", "a", "3", 2, "carol")) // b is gone
	if got := fmt.Sprint(drain(q)); got != "[ns/b]" {
		t.Errorf("after b vanished: %s", got)
	}
	if len(deletes) != 1 || deletes[0].Object.Name != "b" || !deletes[0].DeleteStateUnknown {
		t.Errorf("deletes %+v, want b's with DeleteStateUnknown", deletes)
	}
}

// controller-runtime's EnqueueRequestForOwner works unchanged on the
// syncer's events: a widget's event enqueues its controller owner, in the
// widget's namespace, at a create, an update and an inferred deletion; a
// widget without an owner of that kind enqueues nothing.
func TestSourceFeedsEnqueueRequestForOwner(t *testing.T) {
	scheme := kruntime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	controller := true
	owned := func(name, rv, owner string) *shopv1alpha1.Widget {
		w := widget("ns", name, rv, 1, "alice")
		if owner != "" {
			w.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner,
				UID: types.UID("cm-" + owner), Controller: &controller}}
		}
		return w
	}
	ws, d := shopsyncers.NewWidgetDriver()
	q := newQueue()
	defer q.ShutDown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := ctrlsyncer.Source(ws.Syncer,
		handler.TypedEnqueueRequestForOwner[*shopv1alpha1.Widget](scheme, mapper, &corev1.ConfigMap{}, handler.OnlyControllerOwner()))
	if err := src.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	d.Add(owned("a", "1", "cfg-1"), owned("b", "1", "cfg-2"), owned("c", "1", ""))
	d.Sync()
	if err := src.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(drain(q)); got != "[ns/cfg-1 ns/cfg-2]" {
		t.Errorf("after the sync: %s", got)
	}
	d.Update(owned("c", "2", "cfg-3"))
	if got := fmt.Sprint(drain(q)); got != "[ns/cfg-3]" {
		t.Errorf("c given an owner: %s", got)
	}
	d.Resync(owned("a", "1", "cfg-1"), owned("c", "2", "cfg-3")) // b is gone
	if got := fmt.Sprint(drain(q)); got != "[ns/cfg-2]" {
		t.Errorf("after b vanished: %s", got)
	}
}
