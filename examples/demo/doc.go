// Command demo shows syncer-gen's examples at work on a local server it
// starts and stops itself (`make demo`):
//
//  1. starts etcd and kube-apiserver from bin/ (built by hack/build-testbed.sh);
//  2. installs the Widget CRD of examples/crd;
//  3. creates 3000 ConfigMaps and 2000 Widgets with parallel workers;
//  4. builds examples/builtin and examples/crd;
//  5. runs `builtin --once --resource configmaps`: a progress bar during the
//     initial sync, then its synced line;
//  6. runs `crd` live: it syncs, then the demo adds, updates and deletes a
//     few widgets and the example prints each event as it arrives;
//  7. runs `crd --reconcile --metrics-addr`: a controller sets every
//     widget's status.phase, then reconciles a change of spec the demo
//     makes; the demo scrapes its /metrics;
//  8. stops everything it started, and exits 0.
//
// It synchronises on what the examples print (their stdout is read line by
// line, with deadlines), never on sleeps. On any failure it says which step
// failed and why, still stops everything, and exits 1. On a terminal it
// draws headed steps and progress bars in place; elsewhere it prints plain
// lines.
package main
