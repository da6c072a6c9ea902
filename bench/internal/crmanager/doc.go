// Package crmanager is the controller-runtime contenders' Manager: one
// controller of widgets whose reconciler reads the widget it is given,
// with controller-runtime's cache (the crcache program) or with the
// generated syncer through ctrlsyncer (the crsyncer program). Synced is
// when every widget was reconciled once; on no widgets (an idle run), when
// the controller's source has synced.
package crmanager
