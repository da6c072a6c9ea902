// Command builtin syncs one built-in resource (pods, nodepods, configmaps,
// nodes or deployments) with the syncers syncer-gen generated for k8s.io/api
// types into ./syncers, showing a progress bar on stderr during the initial
// sync.
//
//	builtin --resource configmaps [--namespace NS] [--kubeconfig PATH] [--once] [--snapshot FILE]
//	builtin --resource nodepods [--node NODE] [--namespace NS] [--kubeconfig PATH] [--once]
//
// With --once it exits after the initial sync, and its last line on stdout
// says how many objects it synced, how, and the bytes its store keeps
// (Store().Bytes(), an estimate of the heap the objects hold):
//
//	synced 3000 configmaps in 1.42s mode=watchlist store=2.9MiB
//
// Without it, it keeps running and prints a line for every object added,
// updated or deleted, until SIGINT or SIGTERM.
//
// --resource nodepods is a node agent: a syncer of kinds.NodePod, a
// projection of Pod to the fields such an agent reads (labels, owners,
// node, containers' names and images, phase, IPs), whose generated
// decoders skip the rest as it arrives. With --node it asks only for the
// pods of that node (the field selector spec.nodeName=NODE) and, as a
// syncer with a field selector does by default, syncs them by LIST +
// WATCH, which costs the server less than a WatchList. It prints each
// pod's node, phase, IPs and images, and for an update what of them
// changed:
//
//	updated pod shop/web-7d9c8 phase=Pending→Running ips=<none>→10.64.0.7
//
// --resource pods syncs the same pods whole (without managedFields), to
// compare: its store keeps about ten times the bytes. --node works for it
// too.
package main
