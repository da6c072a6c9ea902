// Command crd syncs the widgets of the CRD example (API in ./api, CRD in
// ./config/crd) with the syncer syncer-gen generated into ./syncers from
// the markers on the Widget type. It shows how a CRD project wires a
// generated syncer: NewWidgetSyncer, AddHandler, Run, WaitForSync and the
// typed indexes of its store (ByOwner, ByColor).
//
//	crd [--kubeconfig PATH] [--namespace NS] [--install-crd] [--once] [--view]
//	crd --reconcile [--metrics-addr HOST:PORT] [--sync-timeout D] [--kubeconfig PATH] [--namespace NS]
//
// A progress bar on stderr follows the initial sync; then it prints the
// synced line (with the bytes its store keeps, Store().Bytes()) and how
// many widgets each owner and color has, and (without --once) a line for
// every widget added, updated or deleted, until SIGINT or SIGTERM.
//
// With --view it does the same on WidgetViews (./views): a projection of
// the widget to its owner, color, size and phase, whose generated JSON
// decoder reads only those off the wire (NewWidgetViewSyncer, with the same
// ByOwner and ByColor indexes). It prints the same lines; its store keeps
// less.
//
// With --reconcile it is a small controller instead (controller.go): a
// syncerset.Set holds the widget syncer (WidgetSyncerIn), a queue.Enqueue
// handler feeds widget keys into client-go's rate-limited work queue, and
// two workers set each widget's status.phase (status subresource) to Ready
// or Pending from its spec, read from the store by key, retrying failures
// (conflicts) with the queue's rate limiter. --metrics-addr serves the
// prometheusmetrics collectors at /metrics.
package main
