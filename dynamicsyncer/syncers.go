package dynamicsyncer

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// MetadataSyncer keeps the metadata of one resource's objects.
type MetadataSyncer = runtime.Syncer[*metav1.PartialObjectMetadata]

// UnstructuredSyncer keeps one resource's objects whole, unstructured.
type UnstructuredSyncer = runtime.Syncer[*unstructured.Unstructured]

// MetadataResource returns res bound to PartialObjectMetadata: its LIST
// pages are PartialObjectMetadataLists, and it asks the server for
// metadata only (runtime.Resource.MetadataOnly). Of res only Group,
// Version, Resource, Kind and Namespaced count.
func MetadataResource(res runtime.Resource) runtime.Resource {
	res.NewList = func() kruntime.Object { return &metav1.PartialObjectMetadataList{} }
	res.MetadataOnly = true
	return res
}

// UnstructuredResource returns res bound to Unstructured: its LIST pages
// are UnstructuredLists, of whole objects, in JSON. Of res only Group,
// Version, Resource, Kind and Namespaced count.
func UnstructuredResource(res runtime.Resource) runtime.Resource {
	res.NewList = func() kruntime.Object { return &unstructured.UnstructuredList{} }
	res.MetadataOnly = false
	return res
}

// NewMetadata returns a syncer of the metadata of res's objects, talking
// to the server of cfg. Its objects' apiVersion and kind are left empty,
// as a generated syncer's are.
func NewMetadata(cfg *rest.Config, res runtime.Resource, opts ...runtime.Option) (*MetadataSyncer, error) {
	return runtime.New[*metav1.PartialObjectMetadata](cfg, MetadataResource(res), opts...)
}

// NewUnstructured returns a syncer of res's objects, unstructured,
// talking to the server of cfg. Each object keeps its apiVersion and kind,
// as the dynamic client's do.
func NewUnstructured(cfg *rest.Config, res runtime.Resource, opts ...runtime.Option) (*UnstructuredSyncer, error) {
	return runtime.New[*unstructured.Unstructured](cfg, UnstructuredResource(res), opts...)
}

// MetadataIn returns the set's metadata syncer of res for opts, adding it
// on the first request (see syncerset.Add).
func MetadataIn(set *syncerset.Set, res runtime.Resource, opts ...runtime.Option) (*MetadataSyncer, error) {
	return syncerset.Add[*metav1.PartialObjectMetadata](set, MetadataResource(res), opts...)
}

// UnstructuredIn returns the set's unstructured syncer of res for opts,
// adding it on the first request (see syncerset.Add).
func UnstructuredIn(set *syncerset.Set, res runtime.Resource, opts ...runtime.Option) (*UnstructuredSyncer, error) {
	return syncerset.Add[*unstructured.Unstructured](set, UnstructuredResource(res), opts...)
}

// NewMetadataDriver returns a metadata syncer of res with no server and
// the driver that feeds it, for unit tests (see runtime.Driver).
func NewMetadataDriver(res runtime.Resource, opts ...runtime.Option) (*MetadataSyncer, *runtime.Driver[*metav1.PartialObjectMetadata]) {
	return runtime.NewDriver[*metav1.PartialObjectMetadata](MetadataResource(res), opts...)
}

// NewUnstructuredDriver returns an unstructured syncer of res with no
// server and the driver that feeds it, for unit tests (see
// runtime.Driver).
func NewUnstructuredDriver(res runtime.Resource, opts ...runtime.Option) (*UnstructuredSyncer, *runtime.Driver[*unstructured.Unstructured]) {
	return runtime.NewDriver[*unstructured.Unstructured](UnstructuredResource(res), opts...)
}
