// Package ctrlsyncer lets a controller-runtime project use a generated
// syncer for one resource at a time, keeping its Manager, builder,
// handlers, predicates and reconcilers.
//
//   - Source turns a syncer into a source.TypedSyncingSource for
//     builder.WatchesRawSource: controller-runtime's own event handlers
//     (EnqueueRequestForObject, EnqueueRequestForOwner, Funcs) and
//     predicates (GenerationChangedPredicate...) get its events, through the
//     syncer's own per-handler queue, so a slow controller stalls nothing.
//     A deletion the syncer inferred (seen missing after a resync) comes as
//     a delete with DeleteStateUnknown set.
//   - Reader is a client.Reader over syncers: Get, and List with a
//     namespace, a label selector and MatchingFields served by the syncer's
//     indexes, returning deep copies unless told the caller only reads.
//   - Runnable runs syncers in a Manager before leader election, so that a
//     standby replica holds synced stores when it becomes the leader.
//
// In a kubebuilder project, SetupWithManager changes in one line:
//
//	widgets, _ := shopsyncers.NewWidgetSyncer(mgr.GetConfig())
//	mgr.Add(ctrlsyncer.Runnable(widgets))
//	return ctrl.NewControllerManagedBy(mgr).Named("widget").
//		WatchesRawSource(ctrlsyncer.Source(widgets.Syncer, &handler.TypedEnqueueRequestForObject[*shopv1alpha1.Widget]{})).
//		Complete(r)
//
// and the reconciler reads through a Reader instead of the Manager's
// client (ctrlsyncer.NewReader, then Register each syncer). runtime does
// not import controller-runtime: this package is the adapter.
package ctrlsyncer
