// Package dynamicsyncer makes syncers of resources chosen at run time,
// which syncer-gen cannot generate: a policy engine, a backup tool, a
// garbage collector or a status aggregator learns which resources it
// watches from its configuration or from the server, not from Go types.
//
// Two kinds of objects, both with everything a generated syncer has (a
// store, indexes, handlers, snapshots and warm restarts, shards, a set's
// shared connection, metrics), since each is a *runtime.Syncer:
//
//   - MetadataSyncer keeps *metav1.PartialObjectMetadata: each object's
//     metadata (name, namespace, UID, resourceVersion, labels,
//     annotations, owner references, finalizers, managed fields...),
//     which it asks the server for alone, as client-go's metadata
//     informers do: a ConfigMap's or a Secret's data never crosses the
//     wire.
//   - UnstructuredSyncer keeps *unstructured.Unstructured: whole objects
//     as client-go's dynamic client reads them (JSON's maps, lists,
//     strings, bools, int64 and float64 numbers), kept losslessly across
//     a warm restart.
//
// Package resolve's Resolver finds the runtime.Resource of a group,
// version and resource (or kind) through the server's discovery; a program
// that knows it writes it instead, and links no discovery:
//
//	r, err := resolve.NewResolver(cfg)
//	res, err := r.Kind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
//	deployments, err := dynamicsyncer.NewMetadata(cfg, res,
//		runtime.WithIndex("app", func(m *metav1.PartialObjectMetadata) []string { return []string{m.Labels["app"]} }))
//
//	configMaps, err := dynamicsyncer.NewUnstructured(cfg,
//		runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true})
//
// MetadataIn and UnstructuredIn add them to a syncerset.Set. Which of a
// generated syncer, a projection of metadata, a MetadataSyncer or an
// UnstructuredSyncer to choose: docs/dynamic.md.
package dynamicsyncer
