package main

import (
	"context"
	"fmt"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/widgetclient"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

func main() { child.Main(run) }

func run(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
	if gvr, ok := builtin[resource]; ok {
		switch contender {
		case child.ClientGoMetadata:
			return runInformer[*metav1.PartialObjectMetadata](ctx, e, metadataInformer(gvr))
		case child.ClientGoDynamic:
			return runInformer[*unstructured.Unstructured](ctx, e, dynamicInformer(gvr))
		}
	}
	switch resource {
	case child.ConfigMaps:
		return typed[*corev1.ConfigMap](ctx, contender, e, corev1informers.NewFilteredConfigMapInformer)
	case child.Secrets:
		return typed[*corev1.Secret](ctx, contender, e, corev1informers.NewFilteredSecretInformer)
	case child.Pods, child.ProjPods:
		return typed[*corev1.Pod](ctx, contender, e, corev1informers.NewFilteredPodInformer)
	case child.Widgets:
		switch contender {
		case child.ClientGoWatch:
			return runInformer[*shopv1alpha1.Widget](ctx, e, newWidgetInformer)
		case child.ClientGoDynamic:
			return runInformer[*unstructured.Unstructured](ctx, e, newDynamicWidgetInformer)
		}
	}
	return child.Outcome{}, fmt.Errorf("no contender %q of %s", contender, resource)
}

// typed runs the contender with client-go's generated informer of a
// built-in type.
func typed[P metav1.Object](ctx context.Context, contender string, e *child.Env, newInformer informerFunc) (child.Outcome, error) {
	switch contender {
	case child.ClientGoWatch, child.ClientGoList, child.ClientGoSlow:
		return runInformer[P](ctx, e, typedInformer(newInformer))
	case child.ClientGoStrip:
		return runInformer[P](ctx, e, stripping(typedInformer(newInformer)))
	}
	return child.Outcome{}, fmt.Errorf("unknown contender %q", contender)
}

// builtin are the built-in resources of the untyped informers.
var builtin = map[string]schema.GroupVersionResource{
	child.ConfigMaps: corev1.SchemeGroupVersion.WithResource("configmaps"),
	child.Secrets:    corev1.SchemeGroupVersion.WithResource("secrets"),
	child.Pods:       corev1.SchemeGroupVersion.WithResource("pods"),
}

// metadataInformer makes client-go's metadata informers of gvr
// (metadatainformer: the metadata client asks for PartialObjectMetadata,
// in protobuf), with no indexes.
func metadataInformer(gvr schema.GroupVersionResource) newInformerFunc {
	return func(cfg *rest.Config, ns, fieldSelector string) (cache.SharedIndexInformer, error) {
		client, err := metadata.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		return metadatainformer.NewFilteredMetadataInformer(client, gvr, ns, 0, cache.Indexers{},
			func(o *metav1.ListOptions) { o.FieldSelector = fieldSelector }).Informer(), nil
	}
}

// dynamicInformer makes client-go's dynamic informers of gvr
// (dynamicinformer: unstructured objects, JSON), with no indexes.
func dynamicInformer(gvr schema.GroupVersionResource) newInformerFunc {
	return func(cfg *rest.Config, ns, fieldSelector string) (cache.SharedIndexInformer, error) {
		client, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return nil, err
		}
		return dynamicinformer.NewFilteredDynamicInformer(client, gvr, ns, 0, cache.Indexers{},
			func(o *metav1.ListOptions) { o.FieldSelector = fieldSelector }).Informer(), nil
	}
}

// newWidgetInformer is the informer that informer-gen would generate for
// widgets, written out: a ListWatch on a typed REST client.
func newWidgetInformer(cfg *rest.Config, ns, _ string) (cache.SharedIndexInformer, error) {
	rc, err := widgetclient.New(cfg)
	if err != nil {
		return nil, err
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (kruntime.Object, error) {
			l := &shopv1alpha1.WidgetList{}
			return l, rc.Get().Namespace(ns).Resource(widgetclient.Plural).VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(l)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.Watch = true
			return rc.Get().Namespace(ns).Resource(widgetclient.Plural).VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
		},
	}
	return cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, rc), &shopv1alpha1.Widget{}, 0,
		widgetIndexers(func(obj any, field string) string {
			if field == "owner" {
				return obj.(*shopv1alpha1.Widget).Spec.Owner
			}
			return obj.(*shopv1alpha1.Widget).Spec.Color
		})), nil
}

// newDynamicWidgetInformer is client-go's dynamic informer of widgets
// (unstructured objects).
func newDynamicWidgetInformer(cfg *rest.Config, ns, _ string) (cache.SharedIndexInformer, error) {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	gvr := shopv1alpha1.SchemeGroupVersion.WithResource(widgetclient.Plural)
	return dynamicinformer.NewFilteredDynamicInformer(client, gvr, ns, 0, widgetIndexers(func(obj any, field string) string {
		v, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", field)
		return v
	}), nil).Informer(), nil
}

// widgetIndexers are the indexes that the generated WidgetSyncer keeps
// (ByOwner, ByColor: markers on the type), for client-go's informers, so
// that every contender maintains the same ones; spec reads a field of
// spec.
func widgetIndexers(spec func(obj any, field string) string) cache.Indexers {
	by := func(field string) cache.IndexFunc {
		return func(obj any) ([]string, error) { return []string{spec(obj, field)}, nil }
	}
	return cache.Indexers{"owner": by("owner"), "color": by("color")}
}
