package ctrlsyncer_test

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// The reader cases of controller-runtime v0.25.2's pkg/cache/cache_test.go,
// over the fixtures (see fixtures): Get and List of typed objects,
// namespaced and cluster-scoped; Unstructured; PartialObjectMetadata;
// label selectors; MatchingFields through an index; Limit and Continue;
// deep copies and UnsafeDisableDeepCopy; NotFound; and the cache's
// namespaces and selectors, and reads outside them.

func uConfigMap() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	return u
}

func uConfigMapList() *unstructured.UnstructuredList {
	u := &unstructured.UnstructuredList{}
	u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	return u
}

func mConfigMap() *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	return m
}

func mConfigMapList() *metav1.PartialObjectMetadataList {
	m := &metav1.PartialObjectMetadataList{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMapList"))
	return m
}

func key(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

// ofCase is the label selector of a case's fixtures, in every namespace.
func (e *twinEnv) ofCase() client.MatchingLabels { return client.MatchingLabels{"case": e.ns} }

// requirement is a set-based label requirement, or the test's failure.
func (e *twinEnv) requirement(k string, op selection.Operator, vals ...string) labels.Requirement {
	r, err := labels.NewRequirement(k, op, vals)
	if err != nil {
		e.t.Fatal(err)
	}
	return *r
}

func readerCases() []twinCase {
	webOnly := func(ns, other string) cache.Options {
		return cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Label: labels.SelectorFromSet(labels.Set{"app": "web"})}}}
	}
	return []twinCase{
		// Get and List of typed objects.
		{name: "Get of a namespaced typed object", run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.get(key(e.ns, "p"), &corev1.Pod{})
			e.get(key(e.ns, "w"), &shopv1alpha1.Widget{})
		}},
		{name: "Get of a cluster-scoped typed object", run: func(e *twinEnv) {
			e.get(key("", e.ns+"-n1"), &corev1.Node{})
		}},
		{name: "Get of a typed object keeps its content", run: func(e *twinEnv) {
			var cm corev1.ConfigMap
			if e.get(key(e.ns, "a"), &cm) == nil {
				e.note("data=%v labels=%v", cm.Data, cm.Labels)
			}
		}},
		{name: "Get of a missing object is NotFound", run: func(e *twinEnv) {
			e.get(key(e.ns, "missing"), &corev1.ConfigMap{})
			e.get(key(e.ns, "missing"), &corev1.Pod{})
			e.get(key(e.ns, "missing"), &shopv1alpha1.Widget{})
		}},
		{name: "Get of a missing cluster-scoped object is NotFound", run: func(e *twinEnv) {
			e.get(key("", e.ns+"-missing"), &corev1.Node{})
		}},
		{name: "Get of an object in another namespace is NotFound", run: func(e *twinEnv) {
			e.get(key(e.other, "b"), &corev1.ConfigMap{})
		}},
		{name: "List of typed objects in a namespace", run: func(e *twinEnv) {
			e.list("ConfigMaps in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
			e.list("ConfigMaps in other", &corev1.ConfigMapList{}, client.InNamespace(e.other))
			e.list("Pods in ns", &corev1.PodList{}, client.InNamespace(e.ns))
			e.list("widgets in ns", &shopv1alpha1.WidgetList{}, client.InNamespace(e.ns))
		}},
		{name: "List of typed objects in every namespace", run: func(e *twinEnv) {
			e.list("ConfigMaps of the case", &corev1.ConfigMapList{}, e.ofCase())
		}},
		{name: "List of cluster-scoped typed objects", run: func(e *twinEnv) {
			e.list("Nodes of the case", &corev1.NodeList{}, e.ofCase())
			e.list("Nodes of the case with role b", &corev1.NodeList{}, client.MatchingLabels{"case": e.ns, "role": "b"})
		}},
		{name: "List in a namespace with nothing", run: func(e *twinEnv) {
			e.list("Pods in other", &corev1.PodList{}, client.InNamespace(e.other))
		}},

		// Unstructured.
		{name: "Get of Unstructured", run: func(e *twinEnv) {
			u := uConfigMap()
			if e.get(key(e.ns, "a"), u) == nil {
				data, _, _ := unstructured.NestedStringMap(u.Object, "data")
				e.note("data=%v", data)
			}
		}},
		{name: "Get of a missing Unstructured is NotFound", run: func(e *twinEnv) {
			e.get(key(e.ns, "missing"), uConfigMap())
		}},
		{name: "List of Unstructured", run: func(e *twinEnv) {
			e.list("in ns", uConfigMapList(), client.InNamespace(e.ns))
			e.list("of the case", uConfigMapList(), e.ofCase())
			e.list("app=web in ns", uConfigMapList(), client.InNamespace(e.ns), client.MatchingLabels{"app": "web"})
		}},

		// PartialObjectMetadata.
		{name: "Get of PartialObjectMetadata", run: func(e *twinEnv) {
			m := mConfigMap()
			if e.get(key(e.ns, "a"), m) == nil {
				e.note("labels=%v", m.Labels)
			}
		}},
		{name: "Get of a missing PartialObjectMetadata is NotFound", run: func(e *twinEnv) {
			e.get(key(e.ns, "missing"), mConfigMap())
		}},
		{name: "List of PartialObjectMetadata", run: func(e *twinEnv) {
			e.list("in ns", mConfigMapList(), client.InNamespace(e.ns))
			e.list("of the case", mConfigMapList(), e.ofCase())
			e.list("tier=back", mConfigMapList(), client.MatchingLabels{"case": e.ns, "tier": "back"})
		}},

		// Label selectors.
		{name: "List by an equality label selector", run: func(e *twinEnv) {
			e.list("app=web in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingLabels{"app": "web"})
			e.list("app=web everywhere", &corev1.ConfigMapList{}, client.MatchingLabels{"case": e.ns, "app": "web"})
			e.list("app=none", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingLabels{"app": "none"})
		}},
		{name: "List by a set-based label selector", run: func(e *twinEnv) {
			sel := labels.NewSelector().Add(e.requirement("case", selection.Equals, e.ns),
				e.requirement("app", selection.In, "web", "db"), e.requirement("tier", selection.NotIn, "back"))
			e.list("app in (web,db), tier notin (back)", &corev1.ConfigMapList{}, client.MatchingLabelsSelector{Selector: sel})
			sel = labels.NewSelector().Add(e.requirement("case", selection.Equals, e.ns), e.requirement("tier", selection.Exists))
			e.list("tier exists", &corev1.ConfigMapList{}, client.MatchingLabelsSelector{Selector: sel})
			sel = labels.NewSelector().Add(e.requirement("tier", selection.DoesNotExist))
			e.list("!tier in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingLabelsSelector{Selector: sel})
			sel = labels.NewSelector().Add(e.requirement("case", selection.Equals, e.ns), e.requirement("role", selection.NotEquals, "a"))
			e.list("Nodes role!=a", &corev1.NodeList{}, client.MatchingLabelsSelector{Selector: sel})
		}},
		{name: "List by HasLabels", run: func(e *twinEnv) {
			e.list("tier in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.HasLabels{"tier"})
		}},

		// MatchingFields through an index.
		{name: "List by an index in a namespace", run: func(e *twinEnv) {
			e.list("data.kind=k in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingFields{"data.kind": "k-" + e.ns})
			e.list("data.kind=other in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingFields{"data.kind": "other-" + e.ns})
		}},
		{name: "List by an index in every namespace", run: func(e *twinEnv) {
			e.list("data.kind=k", &corev1.ConfigMapList{}, client.MatchingFields{"data.kind": "k-" + e.ns})
		}},
		{name: "List by an index and a label selector", run: func(e *twinEnv) {
			e.list("data.kind=k, tier=front", &corev1.ConfigMapList{}, client.MatchingFields{"data.kind": "k-" + e.ns}, client.MatchingLabels{"tier": "front"})
		}},
		{name: "List by an index with no match", run: func(e *twinEnv) {
			e.list("data.kind=none", &corev1.ConfigMapList{}, client.MatchingFields{"data.kind": "none-" + e.ns})
			e.list("data.kind=k in a namespace without it", &corev1.ConfigMapList{}, client.InNamespace(e.other), client.MatchingFields{"data.kind": "other-" + e.ns})
		}},

		{name: "List by two indexes", run: func(e *twinEnv) {
			e.list("data.kind=k, app=web", &corev1.ConfigMapList{}, client.MatchingFields{"data.kind": "k-" + e.ns, "app": "web"})
			e.list("data.kind=k, app=web in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingFields{"data.kind": "k-" + e.ns, "app": "web"})
			e.list("data.kind=other, app=web", &corev1.ConfigMapList{}, client.MatchingFields{"data.kind": "other-" + e.ns, "app": "web"})
		}},
		{name: "List of cluster-scoped objects by an index", run: func(e *twinEnv) {
			e.list("Nodes role=a of the case", &corev1.NodeList{}, client.MatchingFields{"role": "a"}, e.ofCase())
			e.list("Nodes role=none", &corev1.NodeList{}, client.MatchingFields{"role": "none-" + e.ns})
		}},
		{name: "List by a field selector the cache does not serve", run: func(e *twinEnv) {
			e.list("by a field with no index", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingFields{"data.none": "x"})
			e.list("by metadata.name", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingFields{"metadata.name": "a"})
			e.list("not an exact match", &corev1.ConfigMapList{}, client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("data.kind", "k-"+e.ns)})
		}},
		{name: "Get and List with a context cancelled", run: func(e *twinEnv) {
			// Past the client's wait for its own writes, which picks the
			// context's end or no write to wait for at random when both
			// are ready: the cache's answer, then.
			ctx, cancel := context.WithCancel(e.ctx)
			cancel()
			err := e.c.Get(ctx, key(e.ns, "a"), &corev1.ConfigMap{}, client.DisableReadYourWritesConsistency)
			e.note("Get: %s", errOf(err))
			err = e.c.List(ctx, &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.DisableReadYourWritesConsistency)
			e.note("List: %s", errOf(err))
		}},

		// Limit and Continue.
		{name: "List with Limit", run: func(e *twinEnv) {
			var all corev1.ConfigMapList
			if e.list("all in ns", &all, client.InNamespace(e.ns)) != nil {
				return
			}
			for _, limit := range []int64{1, 2, 3, 5} {
				var l corev1.ConfigMapList
				err := e.c.List(e.ctx, &l, client.InNamespace(e.ns), client.Limit(limit))
				// Which items the cache keeps is its map's order: note
				// how many, and that each is one of all.
				in := 0
				for _, cm := range l.Items {
					for _, a := range all.Items {
						if a.Name == cm.Name && a.ResourceVersion == cm.ResourceVersion {
							in++
						}
					}
				}
				e.note("Limit %d: %s, %d items, %d of them listed without Limit, continue=%q", limit, errOf(err), len(l.Items), in, l.Continue)
			}
			var l corev1.ConfigMapList
			err := e.c.List(e.ctx, &l, client.MatchingLabels{"case": e.ns, "app": "web"}, client.Limit(2))
			e.note("Limit 2 of app=web everywhere: %s, %d items", errOf(err), len(l.Items))
		}},
		{name: "List with Continue", run: func(e *twinEnv) {
			var l corev1.ConfigMapList
			if e.list("Limit 1", &l, client.InNamespace(e.ns), client.Limit(1)) == nil {
				// The items depend on the cache's order: the token is what counts.
				e.notes = e.notes[:len(e.notes)-1]
				e.note("Limit 1: continue=%q, %d items", l.Continue, len(l.Items))
				e.list("its continue token", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.Continue(l.Continue))
			}
			e.list("a token", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.Continue("token"))
			e.list("a token, Nodes", &corev1.NodeList{}, client.Continue("token"))
		}},

		// Deep copies, and UnsafeDisableDeepCopy per call.
		{name: "Get returns a deep copy", run: func(e *twinEnv) {
			var cm corev1.ConfigMap
			if e.get(key(e.ns, "a"), &cm) != nil {
				return
			}
			cm.Labels["app"] = "mutated"
			cm.Data["kind"] = "mutated"
			var again corev1.ConfigMap
			e.get(key(e.ns, "a"), &again)
			e.note("after mutating the first: app=%s kind=%s", again.Labels["app"], again.Data["kind"])
		}},
		{name: "Get of Unstructured and of PartialObjectMetadata returns a deep copy", run: func(e *twinEnv) {
			u := uConfigMap()
			if e.get(key(e.ns, "a"), u) != nil {
				return
			}
			_ = unstructured.SetNestedField(u.Object, "mutated", "data", "kind")
			u.SetLabels(map[string]string{"app": "mutated"})
			again := uConfigMap()
			e.get(key(e.ns, "a"), again)
			kind, _, _ := unstructured.NestedString(again.Object, "data", "kind")
			e.note("after mutating the first: app=%s kind=%s", again.GetLabels()["app"], kind)
			m := mConfigMap()
			if e.get(key(e.ns, "a"), m) != nil {
				return
			}
			m.Labels["app"] = "mutated"
			mAgain := mConfigMap()
			e.get(key(e.ns, "a"), mAgain)
			e.note("metadata after mutating the first: app=%s", mAgain.Labels["app"])
		}},
		{name: "List returns deep copies", run: func(e *twinEnv) {
			var l corev1.ConfigMapList
			if e.list("in ns", &l, client.InNamespace(e.ns)) != nil {
				return
			}
			for i := range l.Items {
				l.Items[i].Labels["app"] = "mutated"
			}
			var again corev1.ConfigMapList
			e.c.List(e.ctx, &again, client.InNamespace(e.ns), client.MatchingLabels{"app": "mutated"})
			e.note("app=mutated after mutating the first list: %d", len(again.Items))
			m := mConfigMapList()
			if e.list("metadata in ns", m, client.InNamespace(e.ns)) == nil {
				for i := range m.Items {
					m.Items[i].Labels["app"] = "mutated"
				}
				again := mConfigMapList()
				e.c.List(e.ctx, again, client.InNamespace(e.ns), client.MatchingLabels{"app": "mutated"})
				e.note("metadata app=mutated after mutating the first list: %d", len(again.Items))
			}
		}},
		{name: "Get and List with UnsafeDisableDeepCopy", run: func(e *twinEnv) {
			// What the read hands out with the option: the case notes the
			// object only (mutating what the cache hands out corrupts its
			// store).
			var cm corev1.ConfigMap
			e.get(key(e.ns, "a"), &cm, client.UnsafeDisableDeepCopy)
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.UnsafeDisableDeepCopy)
			e.list("Nodes of the case", &corev1.NodeList{}, e.ofCase(), client.UnsafeDisableDeepCopy)
		}},

		// The cache's namespaces and selectors, and reads outside them.
		{name: "DefaultNamespaces: reads inside", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
			e.list("of the case everywhere", &corev1.ConfigMapList{}, e.ofCase())
			e.get(key("", e.ns+"-n1"), &corev1.Node{})
			e.list("Nodes of the case", &corev1.NodeList{}, e.ofCase())
		}},
		{name: "DefaultNamespaces: reads outside", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.other, "a"), &corev1.ConfigMap{})
			e.get(key(e.other, "missing"), &corev1.ConfigMap{})
			e.list("in other", &corev1.ConfigMapList{}, client.InNamespace(e.other))
		}},
		{name: "DefaultNamespaces: two namespaces", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}, other: {}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.other, "a"), &corev1.ConfigMap{})
			e.list("of the case everywhere", &corev1.ConfigMapList{}, e.ofCase())
			e.list("by an index-less label in other", &corev1.ConfigMapList{}, client.InNamespace(e.other), client.MatchingLabels{"app": "web"})
		}},
		{name: "DefaultNamespaces with a label selector", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {LabelSelector: labels.SelectorFromSet(labels.Set{"app": "web"})}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.get(key(e.ns, "c"), &corev1.ConfigMap{})
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
		}},
		{name: "ByObject namespaces", opts: func(ns, other string) cache.Options {
			return cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Namespaces: map[string]cache.Config{other: {}}}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.other, "a"), &corev1.ConfigMap{})
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("of the case everywhere", &corev1.ConfigMapList{}, e.ofCase())
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
			e.list("Pods of the case, not limited", &corev1.PodList{}, e.ofCase())
		}},
		{name: "ByObject label selector", opts: webOnly, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.get(key(e.ns, "c"), &corev1.ConfigMap{})
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
			e.list("app=db in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns), client.MatchingLabels{"app": "db"})
			e.list("Pods in ns, not limited", &corev1.PodList{}, client.InNamespace(e.ns))
		}},
		{name: "DefaultLabelSelector", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{"case": ns, "tier": "back"})}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "b"), &corev1.ConfigMap{})
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("ConfigMaps of the case", &corev1.ConfigMapList{}, e.ofCase())
			e.list("Nodes of the case", &corev1.NodeList{}, e.ofCase())
		}},
		{name: "DefaultUnsafeDisableDeepCopy", opts: func(ns, other string) cache.Options {
			on := true
			return cache.Options{DefaultUnsafeDisableDeepCopy: &on}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.list("in ns", &corev1.ConfigMapList{}, client.InNamespace(e.ns))
		}},
		{name: "DefaultNamespaces and a ByObject selector of a cluster-scoped kind", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultNamespaces: map[string]cache.Config{ns: {}},
				ByObject: map[client.Object]cache.ByObject{&corev1.Node{}: {Label: labels.SelectorFromSet(labels.Set{"case": ns, "role": "b"})}}}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.ConfigMap{})
			e.get(key("", e.ns+"-n2"), &corev1.Node{})
			e.get(key("", e.ns+"-n1"), &corev1.Node{})
			e.list("Nodes", &corev1.NodeList{})
			e.get(key(e.other, "a"), &corev1.ConfigMap{})
		}},
		{name: "DefaultTransform strips managed fields", opts: func(ns, other string) cache.Options {
			return cache.Options{DefaultTransform: cache.TransformStripManagedFields()}
		}, run: func(e *twinEnv) {
			var cm corev1.ConfigMap
			if e.get(key(e.ns, "a"), &cm) == nil {
				e.note("managed fields: %d", len(cm.ManagedFields))
			}
			var l corev1.NodeList
			if e.list("Nodes of the case", &l, e.ofCase()) == nil {
				e.note("managed fields of the first: %d", len(l.Items[0].ManagedFields))
			}
		}},
		{name: "ByObject Transform", opts: func(ns, other string) cache.Options {
			return cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Transform: func(o any) (any, error) {
				if cm, ok := o.(*corev1.ConfigMap); ok {
					cm.Annotations = map[string]string{"transformed": "yes"}
				}
				return o, nil
			}}}}
		}, run: func(e *twinEnv) {
			var cm corev1.ConfigMap
			if e.get(key(e.ns, "a"), &cm) == nil {
				e.note("annotations: %v", cm.Annotations)
			}
			var p corev1.Pod
			if e.get(key(e.ns, "p"), &p) == nil {
				e.note("Pod's annotations: %v", p.Annotations)
			}
		}},
		{name: "a kind the reader is not set up for", opts: func(ns, other string) cache.Options {
			return cache.Options{ReaderFailOnMissingInformer: true}
		}, run: func(e *twinEnv) {
			e.get(key(e.ns, "a"), &corev1.Secret{})
			e.list("Secrets in ns", &corev1.SecretList{}, client.InNamespace(e.ns))
		}},
	}
}
