package ctrlsyncer_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// read is one call, made through a Manager's cache or through a Client.
type read func(ctx context.Context, r client.Reader) error

// sameErrorAsTheCache checks that ours is the cache's error: of the same
// type, with the same text and, for an API status, the same status
// (reason, code, details).
func sameErrorAsTheCache(t *testing.T, ours, theirs error) {
	t.Helper()
	if theirs == nil {
		t.Fatalf("the cache's read did not fail (ours: %v): the case does not test an error", ours)
	}
	if ours == nil {
		t.Fatalf("ours did not fail; the cache's: %T %q", theirs, theirs)
	}
	if reflect.TypeOf(ours) != reflect.TypeOf(theirs) {
		t.Errorf("ours is a %T (%q); the cache's a %T (%q)", ours, ours, theirs, theirs)
	}
	if ours.Error() != theirs.Error() {
		t.Errorf("ours says\n\t%q\nthe cache's\n\t%q", ours, theirs)
	}
	var ourStatus, theirStatus *apierrors.StatusError
	if errors.As(theirs, &theirStatus) {
		if !errors.As(ours, &ourStatus) {
			t.Fatalf("ours is no API status; the cache's is %+v", theirStatus.ErrStatus)
		}
		if !reflect.DeepEqual(ourStatus.ErrStatus, theirStatus.ErrStatus) {
			t.Errorf("ours has the status\n\t%+v\nthe cache's\n\t%+v", ourStatus.ErrStatus, theirStatus.ErrStatus)
		}
	}
}

// Every error a read through the Client returns where the Manager's cache
// returns one is the cache's, word for word and status for status: a
// missing object (typed, cluster-scoped, Unstructured,
// PartialObjectMetadata), a List with Continue, a field selector the cache
// does not serve (not an exact match, empty, a field with no index), a
// kind the server does not have, a read before the start, a read whose
// context ends before the sync. Each case reads through the Manager's
// cache and through the Client, and compares.
func TestClientErrorsAreTheCaches(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := direct.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a"}, Data: map[string]string{"kind": "k"}}); err != nil {
		t.Fatal(err)
	}
	mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) { o.Cache = cache.Options{} })
	c, err := ctrlsyncer.NewClient(mgr)
	if err != nil {
		t.Fatal(err)
	}
	byKind := func(o client.Object) []string { return []string{o.(*corev1.ConfigMap).Data["kind"]} }
	if err := ctrlsyncer.FieldIndexer(mgr).IndexField(ctx, &corev1.ConfigMap{}, "data.kind", byKind); err != nil {
		t.Fatal(err)
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.ConfigMap{}, "data.kind", byKind); err != nil {
		t.Fatal(err)
	}
	widget := &unstructured.Unstructured{}
	widget.SetGroupVersionKind(shopv1alpha1.SchemeGroupVersion.WithKind("Widget"))
	for _, add := range []func() error{
		func() error { _, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn); return err },
		func() error { _, err := ctrlsyncer.Add(mgr, field(c), coresyncers.PodSyncerIn); return err },
		func() error { _, err := ctrlsyncer.Add(mgr, field(c), coresyncers.NodeSyncerIn); return err },
		func() error {
			_, err := ctrlsyncer.Add(mgr, field(c), ctrlsyncer.Unstructured(mgr, widget))
			return err
		},
		func() error {
			_, err := ctrlsyncer.Add(mgr, field(c), ctrlsyncer.Metadata(mgr, &corev1.ConfigMap{}))
			return err
		},
	} {
		if err := add(); err != nil {
			t.Fatal(err)
		}
	}
	missing := client.ObjectKey{Namespace: ns, Name: "missing"}
	getPod := func(ctx context.Context, r client.Reader) error { return r.Get(ctx, missing, &corev1.Pod{}) }

	// Before the Manager starts, both say so.
	t.Run("read before the start", func(t *testing.T) {
		sameErrorAsTheCache(t, getPod(ctx, c), getPod(ctx, mgr.GetCache()))
	})

	start(t, mgr)
	if err := started(ctx, func() error { return c.List(ctx, &corev1.ConfigMapList{}) }); err != nil {
		t.Fatal(err)
	}
	metaOf := func(kind string) *metav1.PartialObjectMetadata {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		return m
	}
	metaList := &metav1.PartialObjectMetadataList{}
	metaList.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	nope := &unstructured.Unstructured{}
	nope.SetGroupVersionKind(schema.GroupVersionKind{Group: "nope.example.com", Version: "v1", Kind: "Nope"})
	for _, tc := range []struct {
		name string
		read read
	}{
		{"Get of a missing Pod", getPod},
		{"Get of a missing ConfigMap", func(ctx context.Context, r client.Reader) error { return r.Get(ctx, missing, &corev1.ConfigMap{}) }},
		{"Get of a missing Node", func(ctx context.Context, r client.Reader) error {
			return r.Get(ctx, client.ObjectKey{Name: ns + "-missing"}, &corev1.Node{})
		}},
		{"Get of a missing Unstructured widget", func(ctx context.Context, r client.Reader) error {
			return r.Get(ctx, missing, widget.DeepCopy())
		}},
		{"Get of a missing ConfigMap's PartialObjectMetadata", func(ctx context.Context, r client.Reader) error {
			return r.Get(ctx, missing, metaOf("ConfigMap"))
		}},
		{"List with Continue", func(ctx context.Context, r client.Reader) error {
			return r.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns), client.Continue("token"))
		}},
		{"List of PartialObjectMetadata with Continue", func(ctx context.Context, r client.Reader) error {
			return r.List(ctx, metaList.DeepCopy(), client.Continue("token"))
		}},
		{"List with a field selector that is not an exact match", func(ctx context.Context, r client.Reader) error {
			return r.List(ctx, &corev1.ConfigMapList{}, client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("data.kind", "k")})
		}},
		{"List with an empty field selector", func(ctx context.Context, r client.Reader) error {
			return r.List(ctx, &corev1.ConfigMapList{}, client.MatchingFields{})
		}},
		{"List by a field with no index", func(ctx context.Context, r client.Reader) error {
			return r.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(ns), client.MatchingFields{"data.nope": "x"})
		}},
		{"List by an index, then a field with no index", func(ctx context.Context, r client.Reader) error {
			sel := fields.AndSelectors(fields.OneTermEqualSelector("data.kind", "k"), fields.OneTermEqualSelector("data.nope", "x"))
			return r.List(ctx, &corev1.ConfigMapList{}, client.MatchingFieldsSelector{Selector: sel})
		}},
		{"Get of a kind the server does not have", func(ctx context.Context, r client.Reader) error {
			return r.Get(ctx, missing, nope.DeepCopy())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sameErrorAsTheCache(t, tc.read(ctx, c), tc.read(ctx, mgr.GetCache()))
		})
	}

	// The cache's first index has nothing: it answers an empty list, and
	// never looks for the second field's index.
	t.Run("List by an index with no match, then a field with no index", func(t *testing.T) {
		sel := fields.AndSelectors(fields.OneTermEqualSelector("data.kind", "none"), fields.OneTermEqualSelector("data.nope", "x"))
		var ours, theirs corev1.ConfigMapList
		errOurs, errTheirs := c.List(ctx, &ours, client.MatchingFieldsSelector{Selector: sel}),
			mgr.GetCache().List(ctx, &theirs, client.MatchingFieldsSelector{Selector: sel})
		if errTheirs != nil || errOurs != nil || len(ours.Items) != 0 {
			t.Errorf("ours: %v, %d items; the cache's: %v, %d items; want both empty", errOurs, len(ours.Items), errTheirs, len(theirs.Items))
		}
	})

	// A read whose context ends before the sync: a Manager as a user with
	// no rights, whose informers and syncers never list.
	t.Run("read whose context ends before the sync", func(t *testing.T) {
		cfg := rest.CopyConfig(srv.Config())
		cfg.Impersonate = rest.ImpersonationConfig{UserName: "ctrlsyncer-test-nobody"}
		mgr := newManager(t, cfg, logr.Discard(), func(o *ctrl.Options) { o.Cache = cache.Options{} })
		c, err := ctrlsyncer.NewClient(mgr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn); err != nil {
			t.Fatal(err)
		}
		start(t, mgr)
		getCM := func(r client.Reader) error {
			short, stop := context.WithTimeout(ctx, time.Second)
			defer stop()
			return r.Get(short, missing, &corev1.ConfigMap{})
		}
		var ours error
		eventually(t, 30*time.Second, func() string {
			var notStarted *cache.ErrCacheNotStarted
			if ours = getCM(c); errors.As(ours, &notStarted) {
				return "the syncers have not started"
			}
			return ""
		})
		theirs := getCM(mgr.GetCache())
		if !apierrors.IsTimeout(theirs) {
			t.Fatalf("the cache's read: %v; want a Timeout", theirs)
		}
		// The cache's status, and its words first: then why the syncer
		// has not synced.
		var ourStatus, theirStatus *apierrors.StatusError
		errors.As(theirs, &theirStatus)
		if !errors.As(ours, &ourStatus) || reflect.TypeOf(ours) != reflect.TypeOf(theirs) {
			t.Fatalf("ours: %T %v; want the cache's %T", ours, ours, theirs)
		}
		if !strings.HasPrefix(ours.Error(), theirs.Error()+": ") || !strings.Contains(ours.Error(), "forbidden") {
			t.Errorf("ours says\n\t%q\nwant the cache's words\n\t%q\nfirst, then why the syncer has not synced (forbidden)", ours, theirs)
		}
		want := theirStatus.ErrStatus
		want.Message = ourStatus.ErrStatus.Message
		if !reflect.DeepEqual(ourStatus.ErrStatus, want) {
			t.Errorf("ours has the status\n\t%+v\nthe cache's\n\t%+v", ourStatus.ErrStatus, theirStatus.ErrStatus)
		}
	})
}
