// Command builtin syncs one built-in resource (pods, configmaps, nodes or
// deployments) with the syncers syncer-gen generated for k8s.io/api types
// into ./syncers, showing a progress bar on stderr during the initial sync.
//
//	builtin --resource configmaps [--namespace NS] [--kubeconfig PATH] [--once]
//
// With --once it exits after the initial sync, and its last line on stdout
// is
//
//	synced 3000 configmaps in 1.42s mode=watchlist
//
// Without it, it keeps running and prints a line for every object added,
// updated or deleted, until SIGINT or SIGTERM.
package main
