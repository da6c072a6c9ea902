package ctrlsyncer_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
)

// sameReads reads each object of keys (one of want's keys) and lists
// them through the Client and through the Manager's cache, and checks that
// both answer the same, and what want says: found or NotFound.
func sameReads(t *testing.T, ctx context.Context, c client.Reader, mgrCache client.Reader, newObj func() client.Object, newList func() client.ObjectList,
	list []client.ListOption, want map[client.ObjectKey]bool) {
	t.Helper()
	for _, key := range slices.SortedFunc(func(yield func(client.ObjectKey) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}, func(a, b client.ObjectKey) int { return strings.Compare(a.String(), b.String()) }) {
		ours, theirs := c.Get(ctx, key, newObj()), mgrCache.Get(ctx, key, newObj())
		switch {
		case want[key] && theirs != nil:
			t.Fatalf("Get %T %s through the cache: %v; the test wants it found", newObj(), key, theirs)
		case !want[key] && !apierrors.IsNotFound(theirs):
			t.Fatalf("Get %T %s through the cache: %v; the test wants NotFound", newObj(), key, theirs)
		case want[key] && ours != nil:
			t.Errorf("Get %T %s through the Client: %v; the cache finds it", newObj(), key, ours)
		case !want[key] && !apierrors.IsNotFound(ours):
			t.Errorf("Get %T %s through the Client: %v; the cache says %q: the Client holds an object the cache's options exclude", newObj(), key, errText(ours), theirs)
		}
	}
	names := func(l client.ObjectList) string {
		var out []string
		items, _ := meta.ExtractList(l)
		for _, item := range items {
			o := item.(client.Object)
			if _, ok := want[client.ObjectKeyFromObject(o)]; ok {
				out = append(out, client.ObjectKeyFromObject(o).String())
			}
		}
		slices.Sort(out)
		return fmt.Sprint(out)
	}
	ours, theirs := newList(), newList()
	errOurs, errTheirs := c.List(ctx, ours, list...), mgrCache.List(ctx, theirs, list...)
	if errOurs != nil || errTheirs != nil || names(ours) != names(theirs) {
		t.Errorf("List %T through the Client: %s, %v; through the cache: %s, %v", ours, names(ours), errOurs, names(theirs), errTheirs)
	}
}

func errText(err error) string {
	if err == nil {
		return "found"
	}
	return err.Error()
}

// WithCacheOptions carries the cache's selectors into the syncers, with
// the cache's precedence: ByObject's Label on Nodes (over the
// DefaultLabelSelector, which Nodes do not match), the
// DefaultLabelSelector on ConfigMaps, ByObject's Field on widgets (and the
// DefaultLabelSelector there too, ByObject giving no Label), a
// per-namespace Config's selector when the type has that one namespace.
// A Get of an object outside the selectors is NotFound through the Client
// as through the Manager's cache, and a List answers the same objects.
// Its transform and UnsafeDisableDeepCopy are carried too.
func TestCacheOptionsSelectorsAreCarried(t *testing.T) {
	srv, direct, ns := server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keep := map[string]string{"keep": "yes"}
	for _, n := range []struct {
		name   string
		labels map[string]string
	}{{ns + "-in", map[string]string{"test": ns, "in": "yes"}}, {ns + "-out", map[string]string{"test": ns}}} {
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: n.labels}}
		if err := direct.Create(ctx, node); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = direct.Delete(context.Background(), node) })
	}
	for _, o := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "in", Labels: keep}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "out"}},
		&shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "in", Labels: keep}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}},
		&shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "out", Labels: keep}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}},
		&shopv1alpha1.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "unlabelled"}, Spec: shopv1alpha1.WidgetSpec{Owner: "o", Size: 1}},
	} {
		if err := direct.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
	newCM := func() client.Object { return &corev1.ConfigMap{} }
	newCMs := func() client.ObjectList { return &corev1.ConfigMapList{} }

	// run makes a Manager whose cache has opts and a Client given them
	// with the syncers of adds, starts them and checks the reads.
	run := func(t *testing.T, opts cache.Options, adds []func(manager.Manager, *ctrlsyncer.Client) error, check func(c *ctrlsyncer.Client, mgrCache cache.Cache)) {
		mgr := newManager(t, srv.Config(), logr.Discard(), func(o *ctrl.Options) { o.Cache = opts })
		c, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithCacheOptions(opts))
		if err != nil {
			t.Fatal(err)
		}
		for _, add := range adds {
			if err := add(mgr, c); err != nil {
				t.Fatal(err)
			}
		}
		start(t, mgr)
		if err := started(ctx, func() error { return c.List(ctx, &corev1.ConfigMapList{}) }); err != nil {
			t.Fatal(err)
		}
		check(c, mgr.GetCache())
	}
	addCMs := func(mgr manager.Manager, c *ctrlsyncer.Client) error {
		_, err := ctrlsyncer.Add(mgr, field(c), coresyncers.ConfigMapSyncerIn)
		return err
	}

	t.Run("ByObject and Default selectors", func(t *testing.T) {
		opts := cache.Options{
			DefaultLabelSelector: labels.SelectorFromSet(keep),
			ByObject: map[client.Object]cache.ByObject{
				&corev1.Node{}:         {Label: labels.SelectorFromSet(labels.Set{"test": ns, "in": "yes"})},
				&shopv1alpha1.Widget{}: {Field: fields.OneTermEqualSelector("metadata.name", "in")},
			},
		}
		run(t, opts, []func(manager.Manager, *ctrlsyncer.Client) error{addCMs,
			func(mgr manager.Manager, c *ctrlsyncer.Client) error {
				_, err := ctrlsyncer.Add(mgr, field(c), coresyncers.NodeSyncerIn)
				return err
			},
			func(mgr manager.Manager, c *ctrlsyncer.Client) error {
				_, err := ctrlsyncer.Add(mgr, field(c), shopsyncers.WidgetSyncerIn)
				return err
			},
		}, func(c *ctrlsyncer.Client, mgrCache cache.Cache) {
			sameReads(t, ctx, c, mgrCache, func() client.Object { return &corev1.Node{} }, func() client.ObjectList { return &corev1.NodeList{} },
				[]client.ListOption{client.MatchingLabels{"test": ns}},
				map[client.ObjectKey]bool{{Name: ns + "-in"}: true, {Name: ns + "-out"}: false})
			sameReads(t, ctx, c, mgrCache, newCM, newCMs, []client.ListOption{client.InNamespace(ns)},
				map[client.ObjectKey]bool{key("in"): true, key("out"): false})
			sameReads(t, ctx, c, mgrCache, func() client.Object { return &shopv1alpha1.Widget{} }, func() client.ObjectList { return &shopv1alpha1.WidgetList{} },
				[]client.ListOption{client.InNamespace(ns)},
				map[client.ObjectKey]bool{key("in"): true, key("out"): false, key("unlabelled"): false})
		})
	})

	t.Run("one namespace's own selector", func(t *testing.T) {
		opts := cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {LabelSelector: labels.SelectorFromSet(keep)}}}
		run(t, opts, []func(manager.Manager, *ctrlsyncer.Client) error{addCMs}, func(c *ctrlsyncer.Client, mgrCache cache.Cache) {
			sameReads(t, ctx, c, mgrCache, newCM, newCMs, []client.ListOption{client.InNamespace(ns)},
				map[client.ObjectKey]bool{key("in"): true, key("out"): false})
		})
	})

	t.Run("transform and UnsafeDisableDeepCopy", func(t *testing.T) {
		mark := func(in any) (any, error) {
			cm := in.(*corev1.ConfigMap)
			cm.Annotations = map[string]string{"transformed": "yes"}
			return cm, nil
		}
		opts := cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: mark, UnsafeDisableDeepCopy: ptr.To(true)}}}
		run(t, opts, []func(manager.Manager, *ctrlsyncer.Client) error{addCMs}, func(c *ctrlsyncer.Client, mgrCache cache.Cache) {
			for name, r := range map[string]client.Reader{"the Client": c, "the cache": mgrCache} {
				var a, b corev1.ConfigMap
				if err := r.Get(ctx, key("in"), &a); err != nil || a.Annotations["transformed"] != "yes" {
					t.Errorf("Get through %s: %v, annotations %v; want the transform's", name, err, a.Annotations)
				}
				if err := r.Get(ctx, key("in"), &b); err != nil || reflect.ValueOf(a.Labels).UnsafePointer() != reflect.ValueOf(b.Labels).UnsafePointer() {
					t.Errorf("two Gets through %s: %v; their labels are two maps: the object was copied, UnsafeDisableDeepCopy says not to", name, err)
				}
			}
		})
	})
}

// WithCacheOptions refuses, at NewClient, what the syncers cannot do as
// the cache does, with an error that names the field and says what to do
// instead: namespaces of one type with different selectors (one syncer
// keeps one store, with one selector), and NewInformer (the syncers are
// not informers).
func TestCacheOptionsRefusedAtNewClient(t *testing.T) {
	srv, _, a := server(t)
	b := srv.Namespace(t)
	for _, tc := range []struct {
		name string
		opts cache.Options
		want []string
	}{
		{"namespaces with different label selectors", cache.Options{DefaultNamespaces: map[string]cache.Config{
			a: {LabelSelector: labels.SelectorFromSet(labels.Set{"keep": "yes"})}, b: {}}},
			[]string{"different label selectors", fmt.Sprintf("DefaultNamespaces[%q].LabelSelector", a), "DefaultLabelSelector"}},
		{"a type's namespaces with different field selectors", cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {
			Namespaces: map[string]cache.Config{a: {FieldSelector: fields.OneTermEqualSelector("metadata.name", "x")}, b: {}}}}},
			[]string{"*v1.ConfigMap", "different field selectors", fmt.Sprintf("ByObject[*v1.ConfigMap].Namespaces[%q].FieldSelector", a)}},
		{"NewInformer", cache.Options{NewInformer: toolscacheNewSharedIndexInformer},
			[]string{"cache.Options.NewInformer", "without it"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := newManager(t, srv.Config(), logr.Discard())
			_, err := ctrlsyncer.NewClient(mgr, ctrlsyncer.WithCacheOptions(tc.opts))
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("NewClient: %v; want an error that says %q", err, w)
				}
			}
		})
	}
}

var toolscacheNewSharedIndexInformer = toolscache.NewSharedIndexInformer
