package ctrlsyncer_test

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

func widget(ns, name, rv string, gen int64, owner string) *shopv1alpha1.Widget {
	return &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, Generation: gen,
		UID: types.UID(ns + "/" + name), Labels: map[string]string{"owner": owner}},
		Spec: shopv1alpha1.WidgetSpec{Owner: owner, Size: 1}}
}

func newQueue() workqueue.TypedRateLimitingInterface[reconcile.Request] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
}

// drain returns the requests queued, sorted.
func drain(q workqueue.TypedRateLimitingInterface[reconcile.Request]) []string {
	var out []string
	for q.Len() > 0 {
		r, _ := q.Get()
		out = append(out, r.String())
		q.Done(r)
		q.Forget(r)
	}
	slices.Sort(out)
	return out
}

// field is a reconciler's client field holding c, for For, Owns and Add.
func field(c client.Client) *client.Client { return &c }
