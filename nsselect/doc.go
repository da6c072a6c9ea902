// Package nsselect chooses the namespaces of syncers over several
// namespaces (runtime.WithNamespaces) by a label selector on Namespace
// objects, and follows their changes: a namespace that gains the labels
// is added to each syncer that follows the selector (its objects are
// synced and delivered, between OnResyncStarted and OnSync), and one that
// loses them, or is deleted, is removed (its objects leave the store, each
// delivered as OnDelete(obj, runtime.DeletionInferred)). controller-
// runtime's cache takes a fixed set of namespaces
// (cache.Options.DefaultNamespaces); choosing them by label is what
// kubernetes-sigs/controller-runtime#3178 asks for.
//
//	sel, err := nsselect.New(set, "team=payments")
//	pods, err := podsyncers.PodSyncerIn(set, runtime.WithNamespaces()) // no namespace until the selector gives them
//	err = sel.Follow(pods.Syncer)
//	set.Start(ctx)
//	err = set.WaitForSync(ctx) // the selector's namespaces, then each of theirs
//
// The Namespaces are watched by a syncer of the set (a LIST and WATCH of
// the labelled Namespaces, so the program needs list and watch on
// namespaces); each syncer that follows lists and watches each chosen
// namespace by itself, so a namespace-scoped grant in each is enough for
// them. It uses only the runtime's public API (Syncer.SetNamespaces).
package nsselect
