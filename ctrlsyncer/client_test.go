package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// The Client on the real server: before its Manager starts, a read of a
// resource with a syncer fails as the cache's does (not started); while
// the server cannot be reached, reads wait, and one whose context ends
// says why the syncer has not synced; once it has, reads come from the
// syncer (with their GroupVersionKind, several fields matched, Limit,
// Continue refused), while reads of other types go to the Manager's client
// and every write goes to the server.
func TestClientReadsFromSyncersAndWritesToTheServer(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, w := range []struct{ name, owner, color string }{{"a", "alice", "red"}, {"b", "bob", "red"}, {"c", "alice", "blue"}} {
		if err := direct.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: w.name},
			Spec: shopv1alpha1.WidgetSpec{Owner: w.owner, Color: w.color, Size: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	proxy := testbed.StartProxy(t, srv) // paused, it holds the sync
	mgr := newManager(t, proxy.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns), runtime.WithBackoff(20*time.Millisecond, 200*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn); err != nil {
		t.Fatal(err)
	}
	keyA := client.ObjectKey{Namespace: ns, Name: "a"}

	var w shopv1alpha1.Widget
	var notStarted *cache.ErrCacheNotStarted
	if err := c.Get(ctx, keyA, &w); !errors.As(err, &notStarted) {
		t.Fatalf("Get before the Manager started: %v; want a cache.ErrCacheNotStarted", err)
	}

	proxy.Pause()
	start(t, mgr)
	eventually(t, 30*time.Second, func() string { // the Manager starts its runnables, ours among them, soon after Start
		short, stop := context.WithTimeout(ctx, 500*time.Millisecond)
		defer stop()
		err := c.Get(short, keyA, &w)
		switch {
		case errors.As(err, &notStarted):
			return "the syncers have not started"
		case !apierrors.IsTimeout(err):
			t.Fatalf("Get while the server cannot be reached: %v; want a Timeout", err)
		case !strings.Contains(err.Error(), "widgets.shop.example.com/v1alpha1: unavailable"):
			return fmt.Sprintf("Get while the server cannot be reached: %v; want it to name the resource and why it has not synced", err)
		}
		return ""
	})
	got := make(chan error, 1)
	go func() { got <- c.Get(ctx, keyA, &w) }()
	proxy.Resume()
	if err := <-got; err != nil || w.Spec.Owner != "alice" {
		t.Fatalf("Get begun before the sync: %v, owner %q", err, w.Spec.Owner)
	}
	if w.GroupVersionKind() != shopv1alpha1.SchemeGroupVersion.WithKind("Widget") {
		t.Errorf("the widget read has GroupVersionKind %q", w.GroupVersionKind())
	}

	names := func(l *shopv1alpha1.WidgetList) string {
		var out []string
		for _, i := range l.Items {
			out = append(out, i.Name)
		}
		return fmt.Sprint(out)
	}
	var l shopv1alpha1.WidgetList
	if err := c.List(ctx, &l, client.InNamespace(ns), client.MatchingFields{"owner": "alice", "color": "red"}); err != nil || names(&l) != "[a]" {
		t.Errorf("List of alice's red widgets: %s, %v; want [a]", names(&l), err)
	}
	if err := c.List(ctx, &l, client.Limit(2)); err != nil || names(&l) != "[a b]" {
		t.Errorf("List with Limit(2): %s, %v; want [a b]", names(&l), err)
	}
	if err := c.List(ctx, &l, client.Continue(l.Continue)); err == nil {
		t.Error("List with the continue token of the last: no error")
	}

	// Another type: the Manager's client, whose cache (ReaderFailOnMissingInformer)
	// watches nothing. The widgets were never read from it.
	var cm corev1.ConfigMap
	var notCached *cache.ErrResourceNotCached
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "x"}, &cm); !errors.As(err, &notCached) {
		t.Errorf("Get of a ConfigMap: %v; want the Manager's client's ErrResourceNotCached", err)
	}

	// Writes go to the server; the syncer then shows them.
	w.Status.Phase = "Ready"
	if err := c.Status().Update(ctx, &w); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, func() string {
		var again shopv1alpha1.Widget
		if err := c.Get(ctx, keyA, &again); err != nil || again.Status.Phase != "Ready" {
			return fmt.Sprintf("the syncer has a's phase %q (%v) after the write", again.Status.Phase, err)
		}
		return ""
	})
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "made"}}); err != nil {
		t.Fatal(err)
	}
	if err := direct.Get(ctx, client.ObjectKey{Namespace: ns, Name: "made"}, &cm); err != nil {
		t.Errorf("a ConfigMap created through the Client is not on the server: %v", err)
	}
}

// Add gives the syncer that serves a type: the same one again for the
// same options; another made with other options, or a client that is not
// a Client, is an error that says so.
func TestAddServesOneSyncerPerType(t *testing.T) {
	srv, _, _ := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr)
	if err != nil {
		t.Fatal(err)
	}
	first, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn, runtime.WithNamespace("add"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn, runtime.WithNamespace("add"))
	if err != nil || again != first {
		t.Errorf("Add with the same options: %p, %v; want the same syncer %p", again, err, first)
	}
	if typed, err := shopsyncers.WidgetSyncerIn(c.Set(), runtime.WithNamespace("add")); err != nil || typed.Syncer != first {
		t.Errorf("WidgetSyncerIn(c.Set()) with the same options: %v; want the same syncer", err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn, runtime.WithNamespace("other")); err == nil {
		t.Error("a second syncer of widgets, with other options: no error")
	}
	// A reconciler made with the Manager's client gets the Manager's
	// Client, and the same syncer.
	managers := mgr.GetClient()
	if s, err := ctrlsyncer.Add(mgr, &managers, shopsyncers.WidgetSyncerIn, runtime.WithNamespace("add")); err != nil || s != first || managers != client.Client(c) {
		t.Errorf("Add to a field holding the Manager's client: %p, %v, the field holds %T; want the syncer %p and the Manager's Client", s, err, managers, first)
	}
}
