package ctrlsyncer_test

import (
	"context"
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// A Reader over a syncer that has not started says so, as
// controller-runtime's cache does (cache.ErrCacheNotStarted), rather than
// NotFound or an empty list: a reconciler must not act on a store that
// has not been filled.
func TestReaderRefusesASyncerNotStarted(t *testing.T) {
	ws, _ := shopsyncers.NewWidgetDriver()
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, ws.Syncer)
	ctx := context.Background()
	var notStarted *cache.ErrCacheNotStarted
	var w shopv1alpha1.Widget
	if err := r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "a"}, &w); !errors.As(err, &notStarted) {
		t.Errorf("Get before the syncer started: %v; want a cache.ErrCacheNotStarted", err)
	}
	var l shopv1alpha1.WidgetList
	if err := r.List(ctx, &l); !errors.As(err, &notStarted) {
		t.Errorf("List before the syncer started: %v (%d items); want a cache.ErrCacheNotStarted", err, len(l.Items))
	}
}

// A Reader over a syncer that is receiving its initial state waits for
// the sync (or the context): Get of an object that has not arrived yet is
// not NotFound, List is not a part of the objects.
func TestReaderWaitsForTheSync(t *testing.T) {
	ws, d := shopsyncers.NewWidgetDriver()
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, ws.Syncer)
	d.Add(widget("ns", "a", "1", 1, "alice")) // the sync is under way: a has arrived, b has not

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type got struct {
		w   shopv1alpha1.Widget
		l   shopv1alpha1.WidgetList
		err error
	}
	gets, lists := make(chan got, 1), make(chan got, 1)
	go func() {
		var g got
		g.err = r.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "b"}, &g.w)
		gets <- g
	}()
	go func() {
		var g got
		g.err = r.List(ctx, &g.l)
		lists <- g
	}()
	select {
	case g := <-gets:
		t.Fatalf("Get of b answered before the sync: %v", g.err)
	case g := <-lists:
		t.Fatalf("List answered before the sync: %d items, %v", len(g.l.Items), g.err)
	case <-time.After(200 * time.Millisecond): // nothing may come before the sync: a bounded wait to see that
	}
	d.Add(widget("ns", "b", "1", 1, "bob"))
	d.Sync()
	if g := <-gets; g.err != nil || g.w.Spec.Owner != "bob" {
		t.Errorf("Get of b after the sync: %v, owner %q", g.err, g.w.Spec.Owner)
	}
	if g := <-lists; g.err != nil || len(g.l.Items) != 2 {
		t.Errorf("List after the sync: %d items, %v; want 2", len(g.l.Items), g.err)
	}

	// A context that ends before the sync ends the wait with a timeout
	// error that names the resource, as the cache's does.
	ws2, d2 := shopsyncers.NewWidgetDriver()
	r2 := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r2, ws2.Syncer)
	d2.Add(widget("ns", "a", "1", 1, "alice"))
	short, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	var w shopv1alpha1.Widget
	if err := r2.Get(short, client.ObjectKey{Namespace: "ns", Name: "a"}, &w); !apierrors.IsTimeout(err) {
		t.Errorf("Get with a context that ends before the sync: %v; want a Timeout error", err)
	}
}

// List honours Limit (the first items in namespace and name order) and
// refuses Continue, as controller-runtime's cache does.
func TestReaderLimitAndContinue(t *testing.T) {
	ws, d := shopsyncers.NewWidgetDriver()
	d.Add(widget("ns", "a", "1", 1, "alice"), widget("ns", "b", "1", 1, "bob"), widget("ns", "c", "1", 1, "alice"))
	d.Sync()
	r := ctrlsyncer.NewReader()
	ctrlsyncer.Register(r, ws.Syncer)
	ctx := context.Background()

	var l shopv1alpha1.WidgetList
	if err := r.List(ctx, &l, client.Limit(1)); err != nil || len(l.Items) != 1 || l.Items[0].Name != "a" {
		t.Errorf("List with Limit(1): %d items, %v; want [a]", len(l.Items), err)
	}
	if err := r.List(ctx, &l, client.Limit(2), client.MatchingLabels{"owner": "alice"}); err != nil || len(l.Items) != 2 || l.Items[1].Name != "c" {
		t.Errorf("List with Limit(2) of alice's: %d items, %v; want [a c]", len(l.Items), err)
	}
	if err := r.List(ctx, &l, client.Continue("token")); err == nil {
		t.Errorf("List with Continue: %d items, no error; want an error (a store has no pages)", len(l.Items))
	}
}
