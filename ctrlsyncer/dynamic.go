package ctrlsyncer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// DynamicSyncer is a syncer of a resource chosen at run time, its objects
// kept as PartialObjectMetadata or as Unstructured (package
// dynamicsyncer), as For, Owns and Add take it (see Metadata and
// Unstructured).
type DynamicSyncer[T client.Object] struct{ *runtime.Syncer[T] }

// Metadata makes For, Owns and Add keep obj's resource as
// PartialObjectMetadata, as the builder's builder.OnlyMetadata and
// WatchesMetadata keep it: the server sends only each object's metadata.
// obj names the resource: an object of a type in the Manager's scheme
// (&corev1.ConfigMap{}) or a *metav1.PartialObjectMetadata with its
// apiVersion and kind set. In SetupWithManager,
//
//	Owns(&corev1.ConfigMap{}, builder.OnlyMetadata).
//
// becomes
//
//	WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, ctrlsyncer.Metadata(mgr, &corev1.ConfigMap{}), &shopv1alpha1.Widget{})).
//
// and the reconciler's reads of PartialObjectMetadata of that
// apiVersion and kind come from the syncer, with their
// GroupVersionKind set, as the cache sets it.
func Metadata(mgr manager.Manager, obj client.Object) func(*syncerset.Set, ...runtime.Option) (*DynamicSyncer[*metav1.PartialObjectMetadata], error) {
	return func(set *syncerset.Set, opts ...runtime.Option) (*DynamicSyncer[*metav1.PartialObjectMetadata], error) {
		res, err := resourceOf(mgr, obj)
		if err != nil {
			return nil, err
		}
		s, err := dynamicsyncer.MetadataIn(set, res, opts...)
		if err != nil {
			return nil, err
		}
		return &DynamicSyncer[*metav1.PartialObjectMetadata]{s}, nil
	}
}

// Unstructured makes For, Owns and Add keep obj's resource as
// Unstructured, whole, as the Manager's cache keeps it for reads of
// Unstructured: obj is an *unstructured.Unstructured with its apiVersion
// and kind set (or an object of a type in the Manager's scheme). The
// reconciler's reads of Unstructured of that apiVersion and kind then
// come from the syncer.
func Unstructured(mgr manager.Manager, obj client.Object) func(*syncerset.Set, ...runtime.Option) (*DynamicSyncer[*unstructured.Unstructured], error) {
	return func(set *syncerset.Set, opts ...runtime.Option) (*DynamicSyncer[*unstructured.Unstructured], error) {
		res, err := resourceOf(mgr, obj)
		if err != nil {
			return nil, err
		}
		s, err := dynamicsyncer.UnstructuredIn(set, res, opts...)
		if err != nil {
			return nil, err
		}
		return &DynamicSyncer[*unstructured.Unstructured]{s}, nil
	}
}

// resourceOf maps obj's kind to its resource with the Manager's REST
// mapper, as the Manager's cache does.
func resourceOf(mgr manager.Manager, obj client.Object) (runtime.Resource, error) {
	gvk, err := apiutil.GVKForObject(obj, mgr.GetScheme())
	if err != nil {
		return runtime.Resource{}, err
	}
	m, err := mgr.GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return runtime.Resource{}, fmt.Errorf("the resource of %s: %w", gvk, err)
	}
	return runtime.Resource{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Resource: m.Resource.Resource,
		Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}, nil
}
