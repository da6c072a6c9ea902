// Command crd syncs the widgets of the CRD example (API in ./api, CRD in
// ./config/crd) with the syncer syncer-gen generated into ./syncers from
// the markers on the Widget type. It shows how a CRD project wires a
// generated syncer: NewWidgetSyncer, AddHandler, Run, WaitForSync and the
// typed indexes of its store (ByOwner, ByColor).
//
//	crd [--kubeconfig PATH] [--namespace NS] [--install-crd] [--once]
//
// A progress bar on stderr follows the initial sync; then it prints the
// synced line and how many widgets each owner and color has, and (without
// --once) a line for every widget added, updated or deleted, until SIGINT
// or SIGTERM.
package main
