package ctrlsyncer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	thingssyncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// requests records the requests a controller reconciled, in order.
type requests struct {
	mu   sync.Mutex
	seen []string
}

func (r *requests) Reconcile(_ context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, req.Name)
	return reconcile.Result{}, nil
}

func (r *requests) has(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.seen {
		if s == name {
			return true
		}
	}
	return false
}

// For and Owns in a controller of a Manager, on the real server: a widget
// is reconciled when it is made; a ConfigMap whose controller owner is a
// widget gets its owner reconciled, one owned by a widget that is not its
// controller, or whose controller is of another kind, gets nothing.
func TestForAndOwnsDriveAController(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mgr := newManager(t, srv.Config(), logr.Discard())
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	rec := &requests{}
	err = ctrl.NewControllerManagedBy(mgr).Named("builder").
		WatchesRawSource(ctrlsyncer.For(mgr, field(c), shopsyncers.WidgetSyncerIn, ctrlsyncer.WithPredicates(predicate.GenerationChangedPredicate{}))).
		WatchesRawSource(ctrlsyncer.Owns(mgr, field(c), coresyncers.ConfigMapSyncerIn, &shopv1alpha1.Widget{})).
		Complete(rec)
	if err != nil {
		t.Fatal(err)
	}
	start(t, mgr)

	if err := direct.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "made"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, func() string {
		if !rec.has("made") {
			return "the widget made was not reconciled"
		}
		return ""
	})

	yes, no := true, false
	owned := func(name string, ref metav1.OwnerReference) *corev1.ConfigMap {
		ref.UID = types.UID("uid-" + ref.Name)
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: []metav1.OwnerReference{ref}}}
	}
	widgetGV := shopv1alpha1.SchemeGroupVersion.String()
	// In this order: the ConfigMaps' events reach the queue in it, and one
	// worker reconciles in it, so that "controlled" comes after what the
	// others would have enqueued.
	for _, cm := range []*corev1.ConfigMap{
		owned("not-controller", metav1.OwnerReference{APIVersion: widgetGV, Kind: "Widget", Name: "owner-not-controller", Controller: &no}),
		owned("other-kind", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner-other-kind", Controller: &yes}),
		owned("controlled", metav1.OwnerReference{APIVersion: widgetGV, Kind: "Widget", Name: "owner-controlled", Controller: &yes}),
	} {
		if err := direct.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, time.Minute, func() string {
		if !rec.has("owner-controlled") {
			return "the controller owner of a ConfigMap was not reconciled"
		}
		return ""
	})
	for _, name := range []string{"owner-not-controller", "owner-other-kind", "not-controller", "other-kind", "controlled"} {
		if rec.has(name) {
			t.Errorf("%s was reconciled", name)
		}
	}
}

// A syncer that does not sync stops the Manager with an error that names
// the resource and says why, in the syncer's words (here: its CRD is not
// installed), and the syncer logs its failures through the Manager's
// logger.
func TestSyncFailureIsExplainedByTheManager(t *testing.T) {
	srv, _, _ := server(t)
	var lines logs
	mgr := newManager(t, srv.Config(), lines.logger())
	c, err := ctrlsyncer.NewClient(mgr)
	if err != nil {
		t.Fatal(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("gadget").
		WithOptions(controller.Options{CacheSyncTimeout: 3 * time.Second}).
		WatchesRawSource(ctrlsyncer.For(mgr, field(c), thingssyncers.GadgetSyncerIn)). // no CRD of gadgets on this server
		Complete(&requests{})
	if err != nil {
		t.Fatal(err)
	}
	err = stops(t, mgr)
	t.Logf("the Manager's error: %v", err)
	for _, want := range []string{
		"syncer source: gadgets.things.golden.example.com/v1",
		"gadgets.things.golden.example.com/v1: not-found: the server does not serve it (is its CRD installed?",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the Manager's error: %v\nwant it to say %q", err, want)
		}
	}
	var notSynced *syncerset.NotSyncedError
	if !errors.As(err, &notSynced) || notSynced.Resources[0].Err == nil {
		t.Errorf("the Manager's error holds no *syncerset.NotSyncedError with the syncer's error: %#v", err)
	}
	if !strings.Contains(lines.String(), `"resource"="gadgets.things.golden.example.com/v1"`) ||
		!strings.Contains(lines.String(), `"kind"="not-found"`) {
		t.Errorf("the Manager's log has no line of the syncer's failure:\n%s", lines.String())
	}
}

// For given no client field, and Owns given an owner type
// the scheme does not know, stop the Manager with an error saying so,
// never a panic.
func TestForAndOwnsRefuseWhatTheyCannotServe(t *testing.T) {
	srv, _, _ := server(t)
	for _, tc := range []struct {
		name string
		add  func(mgr ctrl.Manager, b *ctrl.Builder) *ctrl.Builder
		want string
	}{
		{"for-of-no-field", func(mgr ctrl.Manager, b *ctrl.Builder) *ctrl.Builder {
			return b.WatchesRawSource(ctrlsyncer.For(mgr, nil, shopsyncers.WidgetSyncerIn))
		}, "give &r.Client"},
		{"owns-by-an-unknown-type", func(mgr ctrl.Manager, b *ctrl.Builder) *ctrl.Builder {
			c, err := ctrlsyncer.NewClient(mgr)
			if err != nil {
				t.Fatal(err)
			}
			return b.WatchesRawSource(ctrlsyncer.Owns(mgr, field(c), coresyncers.ConfigMapSyncerIn, &unknown{}))
		}, "ctrlsyncer.Owns: the owner of *v1.ConfigMap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := newManager(t, srv.Config(), logr.Discard())
			b := tc.add(mgr, ctrl.NewControllerManagedBy(mgr).Named(tc.name))
			if err := b.Complete(&requests{}); err != nil {
				t.Fatal(err)
			}
			err := stops(t, mgr)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("the Manager's error: %v; want it to say %q", err, tc.want)
			}
		})
	}
}

// unknown is an object type no scheme knows.
type unknown struct{ corev1.ConfigMap }

func (u *unknown) DeepCopyObject() kruntime.Object { return &unknown{*u.ConfigMap.DeepCopy()} }

// A kubebuilder reconciler, made with the Manager's client as its main.go
// and suite_test.go make it, switches in SetupWithManager alone: For puts
// the Manager's Client in its client field, and its reads of widgets come
// from the syncer. A second reconciler whose client wraps the Manager's (a
// field owner) gets a Client over its own wrapper: the same syncer, its
// writes through the wrapper. NewClient after them is refused: it comes
// first, or not at all.
func TestSwitchInSetupWithManager(t *testing.T) {
	srv, direct, ns := server(t)
	mgr := newManager(t, srv.Config(), logr.Discard())
	type reconciler struct{ client.Client }
	first := &reconciler{mgr.GetClient()}
	second := &reconciler{client.WithFieldOwner(mgr.GetClient(), "second")}
	for name, r := range map[string]*reconciler{"first": first, "second": second} {
		if err := ctrl.NewControllerManagedBy(mgr).Named(name).
			WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, shopsyncers.WidgetSyncerIn)).Complete(&requests{}); err != nil {
			t.Fatal(err)
		}
	}
	c1, ok1 := first.Client.(*ctrlsyncer.Client)
	c2, ok2 := second.Client.(*ctrlsyncer.Client)
	if !ok1 || !ok2 || c1 == c2 || c1.Set() != c2.Set() {
		t.Fatalf("after For, the reconcilers' clients are %T and %T; want two Clients over one set of syncers", first.Client, second.Client)
	}
	if _, err := ctrlsyncer.NewClient(mgr); err == nil {
		t.Error("NewClient after For: no error")
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := direct.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "w"}}); err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*reconciler{"first": first, "second": second} {
		eventually(t, 30*time.Second, func() string {
			var w shopv1alpha1.Widget
			if err := r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "w"}, &w); err != nil {
				return fmt.Sprintf("the %s reconciler's Get: %v", name, err)
			}
			return ""
		})
	}
	w := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "by-second"}}
	if err := second.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	if m := w.GetManagedFields(); len(m) == 0 || m[0].Manager != "second" {
		t.Errorf("a create through the second reconciler's client was written by %v; want its field owner, second", m)
	}
}
