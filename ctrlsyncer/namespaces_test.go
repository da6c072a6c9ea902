package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// createIn creates a widget and a ConfigMap named x in each namespace.
func createIn(t *testing.T, c client.Client, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		if err := c.Create(context.Background(), &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"},
			Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"}}); err != nil {
			t.Fatal(err)
		}
	}
}

// sameError checks that ours and the cache's reads failed alike: with the
// same text, and neither as NotFound.
func sameError(t *testing.T, what string, ours, theirs error) {
	t.Helper()
	switch {
	case theirs == nil || !strings.Contains(theirs.Error(), "unknown namespace for the cache"):
		t.Fatalf("%s through the cache: %v; want its unknown-namespace error", what, theirs)
	case ours == nil || apierrors.IsNotFound(ours) || ours.Error() != theirs.Error():
		t.Errorf("%s through the syncer: %v; want the cache's %q, never NotFound or an empty answer", what, ours, theirs)
	}
}

// A Client limited to one namespace, as the docs switch a Manager whose
// cache watched one (WithSyncerOptions(runtime.WithNamespace(ns))),
// answers a Get or List of another namespace with the error the Manager's
// own cache gives, word for word, never NotFound or an empty list: a
// reconciler that ignores NotFound would take an existing object for
// deleted. Reads of its namespace, and a List of every namespace, are
// served. NewClient refuses a Manager whose cache watches a set of
// namespaces when it is told neither its options nor namespaces.
func TestReadsOutsideTheNamespaceFailAsInTheCache(t *testing.T) {
	srv, direct, a := server(t)
	b := srv.Namespace(t)
	createIn(t, direct, a, b)
	mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) {
		o.Cache.DefaultNamespaces = map[string]cache.Config{a: {}}
	})
	if _, err := ctrlsyncer.NewClient(mgr); err == nil || !strings.Contains(err.Error(), "WithCacheOptions") {
		t.Errorf("NewClient, told nothing of the namespaces of the Manager's cache: %v; want an error that says to give WithCacheOptions", err)
	}
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(a)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn); err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var w shopv1alpha1.Widget
	if err := started(ctx, func() error { return c.Get(ctx, client.ObjectKey{Namespace: a, Name: "x"}, &w) }); err != nil {
		t.Fatalf("Get in the syncer's namespace: %v", err)
	}
	outside := client.ObjectKey{Namespace: b, Name: "x"}
	sameError(t, "Get in another namespace", c.Get(ctx, outside, &w), mgr.GetClient().Get(ctx, outside, &w))
	var l shopv1alpha1.WidgetList
	sameError(t, "List of another namespace", c.List(ctx, &l, client.InNamespace(b)), mgr.GetClient().List(ctx, &l, client.InNamespace(b)))
	if err := c.List(ctx, &l); err != nil || len(l.Items) != 1 || l.Items[0].Namespace != a {
		t.Errorf("List of every namespace: %v, %d items; want a's one", err, len(l.Items))
	}
}

// NewClient given the Manager's cache options (WithCacheOptions) gives
// each syncer the namespaces the cache watches for its type:
// DefaultNamespaces, or ByObject's for the type. Each syncer serves those
// and answers for others as the cache does; a projection of a type whose
// ByObject limits its namespaces gets the same namespaces: ByObject names
// its resource.
func TestClientCarriesTheCachesNamespaces(t *testing.T) {
	srv, direct, a := server(t)
	b, c := srv.Namespace(t), srv.Namespace(t)
	createIn(t, direct, a, b, c)
	opts := cache.Options{
		DefaultNamespaces: map[string]cache.Config{a: {}, b: {}},
		ByObject:          map[client.Object]cache.ByObject{&shopv1alpha1.Widget{}: {Namespaces: map[string]cache.Config{c: {}}}},
	}
	mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) {
		o.Cache.DefaultNamespaces, o.Cache.ByObject = opts.DefaultNamespaces, opts.ByObject
	})
	cl, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithCacheOptions(opts))
	if err != nil {
		t.Fatal(err)
	}
	cms, err := ctrlsyncer.Add(mgr, field(cl), coresyncers.ConfigMapSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	widgets, err := ctrlsyncer.Add(mgr, field(cl), shopsyncers.WidgetSyncerIn)
	if err != nil {
		t.Fatal(err)
	}
	ab := []string{a, b} // sorted, as Namespaces and List give them
	slices.Sort(ab)
	if got := cms.Namespaces(); !slices.Equal(got, ab) {
		t.Errorf("the ConfigMaps' syncer covers %v, want the DefaultNamespaces %v", got, ab)
	}
	if got := widgets.Namespaces(); !slices.Equal(got, []string{c}) {
		t.Errorf("the widgets' syncer covers %v, want ByObject's %v", got, []string{c})
	}
	if views, err := ctrlsyncer.Add(mgr, field(cl), shopsyncers.WidgetViewSyncerIn); err != nil || !slices.Equal(views.Namespaces(), []string{c}) {
		t.Errorf("a projection of widgets, whose ByObject limits their namespaces: %v; want the widgets' namespaces %v", err, []string{c})
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var cml corev1.ConfigMapList
	if err := started(ctx, func() error { return cl.List(ctx, &cml) }); err != nil || namespacesOf(cml.Items) != fmt.Sprint(ab) {
		t.Errorf("List of ConfigMaps: %v, of %s; want a's and b's", err, namespacesOf(cml.Items))
	}
	var wl shopv1alpha1.WidgetList
	if err := cl.List(ctx, &wl); err != nil || len(wl.Items) != 1 || wl.Items[0].Namespace != c {
		t.Errorf("List of widgets: %v, %d; want c's", err, len(wl.Items))
	}
	var cm corev1.ConfigMap
	key := client.ObjectKey{Namespace: c, Name: "x"}
	sameError(t, "Get of a ConfigMap in c", cl.Get(ctx, key, &cm), mgr.GetClient().Get(ctx, key, &cm))
	var w shopv1alpha1.Widget
	key.Namespace = a
	sameError(t, "Get of a widget in a", cl.Get(ctx, key, &w), mgr.GetClient().Get(ctx, key, &w))
	if err := cl.Get(ctx, client.ObjectKey{Namespace: b, Name: "x"}, &cm); err != nil {
		t.Errorf("Get of a ConfigMap in b: %v", err)
	}
}

// started calls read until it does not fail for a syncer not started yet:
// a Manager starts its runnables soon after its Start.
func started(ctx context.Context, read func() error) error {
	for {
		err := read()
		var notStarted *cache.ErrCacheNotStarted
		if !errors.As(err, &notStarted) || ctx.Err() != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond) // polling interval
	}
}

// namespacesOf lists the namespaces of the ConfigMaps named x.
func namespacesOf(items []corev1.ConfigMap) string {
	var out []string
	for _, i := range items {
		if i.Name == "x" {
			out = append(out, i.Namespace)
		}
	}
	return fmt.Sprint(out)
}
