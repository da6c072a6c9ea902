// Command clientgo is the bench's client-go contenders (see bench/doc.go):
// client-go's SharedIndexInformer over the resource, built as its users
// build it: a clientset and a generated informer for built-in types, a
// ListWatch on a typed REST client for widgets (what informer-gen
// generates), a dynamic informer (dynamicinformer: unstructured objects)
// and a metadata informer (metadatainformer: PartialObjectMetadata). It
// links client-go (its clientset and informers, which dynamicinformer and
// metadatainformer import too) and nothing of syncer-gen's runtime or
// controller-runtime.
// Whether the reflector uses WatchList follows KUBE_FEATURE_WatchListClient,
// which the parent sets. The parent runs it as bench/internal/child says.
package main
