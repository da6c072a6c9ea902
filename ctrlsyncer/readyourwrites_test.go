package ctrlsyncer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/internal/childload"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// readsItsWrites sets the Manager's client's switch.
func readsItsWrites(on bool) func(*ctrl.Options) {
	return func(o *ctrl.Options) {
		o.Client.Cache = &client.CacheOptions{EnableReadYourWritesConsistency: &on}
	}
}

// unique returns a namespace name of its own for each run of a test.

// A controller that makes one child per parent when it lists none, moved
// to syncers, its watches held back 300 ms by a proxy while another client
// makes and updates parents: with the Manager's EnableReadYourWritesConsistency
// off it makes duplicates (so the test bites), with it on none. With it
// on, the Manager's cache starts no informer of its own for the served
// types: every list and watch of them the server gets is a syncer's, and
// says so in its User-Agent.
func TestReadYourOwnWritesThroughTheClient(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("switch=%t", on), func(t *testing.T) {
			srv, direct, ns := server(t)
			proxy := testbed.StartProxy(t, srv)
			proxy.DelayWatches(300 * time.Millisecond)
			proxy.RecordRequests(true)
			mgr := newManager(t, proxy.Config(), logr.Discard(), readsItsWrites(on))
			r := &childload.Reconciler{}
			if err := r.SetupWithSyncers(mgr, ns, 4); err != nil {
				t.Fatal(err)
			}
			start(t, mgr)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := childload.Churn(ctx, direct, ns, 40, 100, 4*time.Second); err != nil {
				t.Fatal(err)
			}
			dups, err := r.Settle(ctx, direct, ns)
			if err != nil {
				t.Fatal(err)
			}
			reconciles, made := r.Reconciles()
			t.Logf("%d reconciles, %d children made, %d parents with duplicates", reconciles, made, dups)
			switch {
			case !on && dups == 0:
				t.Fatal("no duplicate children with the switch off: the workload does not bite")
			case on && dups > 0:
				t.Fatalf("%d parents have duplicate children with the switch on", dups)
			}
			for _, req := range proxy.Requests() {
				if res := req.Resource(); (res == "configmaps" || res == "widgets") && req.Method == "GET" && !strings.HasPrefix(req.UserAgent, "syncer-gen/") {
					t.Errorf("%s %s (watch %t) from %q: only the syncers read the served resources", req.Method, req.Path, req.Watch(), req.UserAgent)
				}
			}
		})
	}
}

// With the switch on, each write through the Client is read back by the
// next read, its watch held back 300 ms: a create with generateName, an
// update, a patch, a status update, an apply, a deletion.
func TestEachWriteIsReadBack(t *testing.T) {
	srv, direct, ns := server(t)
	proxy := testbed.StartProxy(t, srv)
	proxy.DelayWatches(300 * time.Millisecond)
	mgr := newManager(t, proxy.Config(), logr.Discard(), readsItsWrites(true))
	c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithSyncerOptions(runtime.WithNamespace(ns)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn); err != nil {
		t.Fatal(err)
	}
	if _, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn); err != nil {
		t.Fatal(err)
	}
	start(t, mgr)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	w := &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "w-"}, Spec: shopv1alpha1.WidgetSpec{Owner: "a", Size: 1}}
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(w)
	readBack := func(what string, check func(*shopv1alpha1.Widget) bool) {
		t.Helper()
		var got shopv1alpha1.Widget
		if err := c.Get(ctx, key, &got); err != nil {
			t.Fatalf("Get after %s: %v", what, err)
		}
		if !check(&got) {
			t.Fatalf("Get after %s read resourceVersion %s: the state before the write", what, got.ResourceVersion)
		}
		var list shopv1alpha1.WidgetList
		if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || !check(&list.Items[0]) {
			t.Fatalf("List after %s read %d widgets, not the one written", what, len(list.Items))
		}
	}
	readBack("a create with generateName", func(got *shopv1alpha1.Widget) bool { return got.ResourceVersion == w.ResourceVersion })

	w.Spec.Size = 2
	if err := c.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	readBack("an update", func(got *shopv1alpha1.Widget) bool { return got.Spec.Size == 2 })

	if err := c.Patch(ctx, w, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"size":3}}`))); err != nil {
		t.Fatal(err)
	}
	readBack("a patch", func(got *shopv1alpha1.Widget) bool { return got.Spec.Size == 3 })

	w.Status.Phase = "Ready"
	if err := c.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	readBack("a status update", func(got *shopv1alpha1.Widget) bool { return got.Status.Phase == "Ready" })

	if err := c.Apply(ctx, corev1ac.ConfigMap("applied", ns).WithData(map[string]string{"k": "v"}), client.FieldOwner("test")); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "applied"}, &cm); err != nil {
		t.Fatalf("Get after an apply: %v", err)
	}

	if err := c.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	var gone shopv1alpha1.Widget
	if err := c.Get(ctx, key, &gone); !apierrors.IsNotFound(err) {
		t.Fatalf("Get after a deletion: %v; want NotFound", err)
	}

	// A read that asks not to wait reads the store as it is: another
	// widget just made is not there yet (its watch is held back).
	if err := direct.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "other"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "mine"}}, client.DisableReadYourWritesConsistency); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "mine"}, &gone); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of a create that disabled read-your-own-writes: %v; want NotFound (the store has not seen it)", err)
	}
}

// The Manager's switch is found in its client, wrapped or not.
func TestManagersSwitchIsFound(t *testing.T) {
	srv := testbed.Shared(t)
	for _, tc := range []struct {
		name string
		opts []func(*ctrl.Options)
		want bool
	}{
		{"off", nil, false},
		{"on", []func(*ctrl.Options){readsItsWrites(true)}, true},
		{"on, wrapped", []func(*ctrl.Options){readsItsWrites(true), func(o *ctrl.Options) {
			o.Client.FieldOwner = "owner"
			o.Client.FieldValidation = "Strict"
		}}, true},
		{"off, wrapped", []func(*ctrl.Options){func(o *ctrl.Options) { o.Client.FieldOwner = "owner" }}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := newManager(t, srv.Config(), logr.Discard(), tc.opts...)
			if got := ctrlsyncer.ManagerReadsItsWrites(mgr.GetClient()); got != tc.want {
				t.Fatalf("the Manager's client reads its writes: %t, want %t", got, tc.want)
			}
		})
	}
}
