package runtime

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Object is what a Syncer keeps: a pointer to a Kubernetes API struct.
type Object interface {
	metav1.Object
	kruntime.Object
}

// Resource binds a Syncer to one API resource.
type Resource struct {
	// Group is the API group; empty for the core group.
	Group string
	// Version is the API version, e.g. "v1".
	Version string
	// Resource is the plural resource name used in URLs, e.g. "configmaps".
	Resource string
	// Kind is the object kind, e.g. "ConfigMap".
	Kind string
	// Namespaced tells whether the resource lives in namespaces.
	Namespaced bool
	// NewList returns an empty list object of the resource (e.g.
	// &corev1.ConfigMapList{}); it is used to decode LIST pages.
	NewList func() kruntime.Object
	// MetadataOnly tells that the Syncer's type keeps of an object nothing
	// but its metadata, as metav1.PartialObjectMetadata does and as a
	// projection whose keep paths are all under .metadata does (syncer-gen
	// sets it for those): the Syncer then asks the server for
	// PartialObjectMetadata instead of whole objects, on every request,
	// and for whole objects where the server refuses that (see
	// metadataonly.go). The type's decoders must read both: metadata is
	// field 1, "metadata", in both.
	MetadataOnly bool
}

// GroupVersionResource returns the resource's GVR.
func (r Resource) GroupVersionResource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// String returns "resource.group/version", or "resource/version" for the core group.
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource + "/" + r.Version
	}
	return r.Resource + "." + r.Group + "/" + r.Version
}

func (r Resource) validate() error {
	switch {
	case r.Version == "":
		return fmt.Errorf("resource %q: Version is required", r.Resource)
	case r.Resource == "":
		return fmt.Errorf("resource of kind %q: Resource is required", r.Kind)
	case r.Kind == "":
		return fmt.Errorf("resource %q: Kind is required", r.Resource)
	case r.NewList == nil:
		return fmt.Errorf("resource %q: NewList is required", r.Resource)
	}
	return nil
}
