// Package syncerset runs the syncers of a program together, as client-go's
// SharedInformerFactory runs its informers: register the syncers the
// program needs, start them with one call, wait for all of them with one
// deadline.
//
//	set, err := syncerset.New(cfg, syncerset.WithMetrics(m.For))
//	widgets, err := shopsyncers.WidgetSyncerIn(set, runtime.WithNamespace("shop"))
//	pods, err := coresyncers.PodSyncerIn(set)
//	set.Start(ctx)
//	if err := set.WaitForSync(ctx); err != nil {
//		// e.g. "1 of 2 resources not synced: widgets.shop.example.com/v1alpha1:
//		// not-found (the server does not serve it: is its CRD installed?) ..."
//	}
//
// The syncers of a set share one HTTP client built from the rest.Config, so
// they share its transport: one HTTP/2 connection to the server. Asking
// twice for the same resource and type with the same options (compared by
// runtime.OptionsKey) returns the same syncer, so that parts of a program
// can ask for what they need without wiring it between them. Remove
// stops one and gives its store's memory back, as controller-runtime's
// RemoveInformer removes an informer.
//
// When WaitForSync's context ends first, the error is a *NotSyncedError
// that names each resource that has not synced and why: the kind of its
// last failure (forbidden, not-found, no-bookmark, throttled...) or, with
// none, how far its initial sync has come.
package syncerset
