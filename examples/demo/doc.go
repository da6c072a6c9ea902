// Command demo shows syncer-gen's examples at work on a local server it
// starts and stops itself (`make demo`):
//
//  1. starts etcd and kube-apiserver from bin/ (built by hack/build-testbed.sh);
//  2. installs the Widget CRD of examples/crd;
//  3. creates 3000 ConfigMaps and 2000 Widgets with parallel workers;
//  4. builds examples/builtin and examples/crd;
//  5. runs `builtin --once --resource configmaps --snapshot FILE`: a
//     progress bar during the initial sync, then its synced line;
//  6. changes 1% of the ConfigMaps and runs it again: a warm restart from
//     FILE;
//  7. creates 2000 Deployment-shaped pods over 8 node names, then runs
//     `builtin --once` on them whole (`--resource pods`), projected to a
//     node agent's fields (`--resource nodepods`), as one node's agent
//     (`--node`), and on no pods, and shows each one's sync time, store
//     bytes (Store().Bytes()) and peak RSS side by side, with the
//     projection's ratios to whole pods;
//  8. runs `crd` live: it syncs, then the demo adds, updates and deletes a
//     few widgets and the example prints each event as it arrives;
//  9. runs `crd --reconcile --metrics-addr`: a controller sets every
//     widget's status.phase, then reconciles a change of spec the demo
//     makes; the demo scrapes its /metrics;
//  10. runs three replicas of `crd --reconcile --shards 8`, kills one, waits
//     for its shards to be taken over and reconciled, then starts it again;
//  11. stops everything it started, and exits 0.
//
// It synchronises on what the examples print (their stdout is read line by
// line, with deadlines), never on sleeps. On any failure it says which step
// failed and why, still stops everything, and exits 1. On a terminal it
// draws headed steps and progress bars in place; elsewhere it prints plain
// lines.
package main
