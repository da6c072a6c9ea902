package ctrlsyncer_test

import (
	"context"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// Get and List read the syncer's store: deep copies with their
// GroupVersionKind set, namespaces, labels, and fields served by the
// syncer's indexes, several at once; what the syncer cannot serve is an
// error that says so.
func TestReaderServesTheStore(t *testing.T) {
	ws, d := shopsyncers.NewWidgetDriver()
	red := widget("ns", "b", "1", 1, "bob")
	red.Spec.Color = "red"
	alsoRed := widget("other", "c", "1", 1, "alice")
	alsoRed.Spec.Color = "red"
	d.Add(widget("ns", "a", "1", 1, "alice"), red, alsoRed)
	d.Sync()
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, ws.Syncer)
	ctx := context.Background()

	var w shopv1alpha1.Widget
	if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "a"}, &w); err != nil || w.Spec.Owner != "alice" {
		t.Fatalf("Get: %v, %+v", err, w.Spec)
	}
	if gvk := w.GroupVersionKind(); gvk != shopv1alpha1.SchemeGroupVersion.WithKind("Widget") {
		t.Errorf("Get: the object's GroupVersionKind is %q, want the cache's shop.example.com/v1alpha1 Widget", gvk)
	}
	if stored, _ := ws.Store().Get("ns", "a"); !stored.GroupVersionKind().Empty() {
		t.Errorf("Get set the kind of the store's object: %q", stored.GroupVersionKind())
	}
	w.Spec.Owner = "mallory"
	if stored, _ := ws.Store().Get("ns", "a"); stored.Spec.Owner != "alice" {
		t.Error("changing what Get returned changed the store")
	}
	if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "zz"}, &w); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing widget: %v, want NotFound", err)
	}

	names := func(l *shopv1alpha1.WidgetList) []string {
		var out []string
		for _, i := range l.Items {
			out = append(out, i.Namespace+"/"+i.Name)
		}
		return out
	}
	for _, tc := range []struct {
		opts []client.ListOption
		want string
	}{
		{nil, "[ns/a ns/b other/c]"},
		{[]client.ListOption{client.InNamespace("ns")}, "[ns/a ns/b]"},
		{[]client.ListOption{client.MatchingLabels{"owner": "alice"}}, "[ns/a other/c]"},
		{[]client.ListOption{client.MatchingFields{"owner": "alice"}, client.InNamespace("other")}, "[other/c]"},
		{[]client.ListOption{client.MatchingFields{"owner": "alice", "color": "red"}}, "[other/c]"},
		{[]client.ListOption{client.MatchingFields{"owner": "bob", "color": "red"}, client.InNamespace("other")}, "[]"},
	} {
		var l shopv1alpha1.WidgetList
		if err := r.List(ctx, &l, tc.opts...); err != nil || fmt.Sprint(names(&l)) != tc.want {
			t.Errorf("List(%v): %v, %v; want %s", tc.opts, names(&l), err, tc.want)
		}
		for _, i := range l.Items {
			if i.GroupVersionKind() != shopv1alpha1.SchemeGroupVersion.WithKind("Widget") {
				t.Errorf("List(%v): %s's GroupVersionKind is %q", tc.opts, i.Name, i.GroupVersionKind())
			}
		}
	}
	var shared shopv1alpha1.WidgetList
	if err := r.List(ctx, &shared, client.UnsafeDisableDeepCopy); err != nil || len(shared.Items) != 3 {
		t.Fatalf("List without deep copies: %d items, %v", len(shared.Items), err)
	}
	if stored, _ := ws.Store().Get("ns", "a"); !stored.GroupVersionKind().Empty() {
		t.Error("List without deep copies set the kind of the store's objects")
	}
	var l shopv1alpha1.WidgetList
	if err := r.List(ctx, &l, client.MatchingFields{"spec.size": "1"}); err == nil {
		t.Error("List by a field the syncer has no index of: no error")
	}
	if err := r.List(ctx, &l, client.MatchingFields{"owner": "alice", "spec.size": "1"}); err == nil {
		t.Error("List by two fields, one the syncer has no index of: no error")
	}
	if err := r.List(ctx, &l, client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("owner", "alice")}); err == nil {
		t.Error("List by a field not equal to a value: no error")
	}
	var pods metav1.PartialObjectMetadataList
	if err := r.List(ctx, &pods); err == nil {
		t.Error("List of a type with no syncer: no error")
	}
}
