// Command crcache is the bench's controller-runtime contenders on its own
// cache (see bench/doc.go): cr-cache, a Manager whose controller watches
// For(&Widget{}) and whose reconciler reads each widget through the
// Manager's cache; and cr-metadata, a Manager's cache of a built-in
// resource's metadata (an informer of metav1.PartialObjectMetadata, as
// builder.OnlyMetadata and WatchesMetadata make); and the named part's
// cr-cache-named, a Manager's Client Getting named Secrets (its cache's
// informer of every Secret of the namespace). It links
// controller-runtime and nothing of syncer-gen's runtime. The parent runs
// it as bench/internal/child says.
package main
