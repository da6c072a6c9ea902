// Package ctrlsyncer lets a controller-runtime project use generated
// syncers for one resource at a time, keeping its Manager, builder,
// handlers, predicates and reconcilers, and its reconcilers' code.
//
//   - Client (NewClient) is the client.Client a reconciler embeds: its
//     reads of a resource with a syncer come from the syncer, everything
//     else and every write goes to the Manager's client. Its syncers join
//     the Manager before leader election and log through its logger;
//     WithCacheOptions gives them the namespaces the Manager's cache
//     watches, and RemoveSyncer is the cache's RemoveInformer.
//   - For and Owns are the builder's For and Owns over a syncer, as
//     sources for builder.WatchesRawSource: each adds its syncer to the
//     reconciler's Client. Add serves reads of a type not watched.
//   - FieldIndexer is the Manager's GetFieldIndexer for those syncers: an
//     IndexField statement kept as it is, but for its receiver, gives
//     the syncer its index, served to MatchingFields under the same field.
//   - Source turns a syncer into a source.TypedSyncingSource for any of
//     controller-runtime's handlers (EnqueueRequestForObject,
//     EnqueueRequestForOwner, Funcs) and predicates, through the syncer's
//     own per-handler queue, so a slow controller stalls nothing. A
//     deletion the syncer inferred comes as a delete with
//     DeleteStateUnknown set. Its String names the resource, and its
//     WaitForSync says why the syncer has not synced.
//   - Reader is a client.Reader over syncers with the semantics of
//     controller-runtime's cache: reads wait for the sync and fail when
//     not started; deep copies with their GroupVersionKind; namespace
//     (from the store's namespace index; one the syncer does not cover is
//     the cache's error), label selector, MatchingFields of several
//     fields served by the syncer's indexes, Limit; Continue refused.
//   - Runnable runs syncers made by hand in a Manager before leader
//     election, so that a standby replica holds synced stores.
//
// In a kubebuilder project, SetupWithManager changes one line per
// resource, and nothing else does (main.go and the suite keep giving the
// reconciler mgr.GetClient(): For and Owns replace it):
//
//	return ctrl.NewControllerManagedBy(mgr).
//		WatchesRawSource(ctrlsyncer.For(mgr, &r.Client, shopsyncers.WidgetSyncerIn)).
//		WatchesRawSource(ctrlsyncer.Owns(mgr, &r.Client, batchsyncers.JobSyncerIn, &shopv1alpha1.Widget{})).
//		Named("widget").
//		Complete(r)
//
// A Manager whose cache watches some namespaces gives its syncers its cache
// options first, in main.go: NewClient(mgr, WithCacheOptions(opts)).
//
// runtime does not import controller-runtime: this package is the adapter.
package ctrlsyncer
