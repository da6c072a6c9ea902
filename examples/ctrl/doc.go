// Command ctrl is a kubebuilder-style controller of widgets
// (examples/crd's API) built with controller-runtime, that uses a
// generated syncer instead of the Manager's cache: the syncer's source in
// the controller's builder, a ctrlsyncer.Reader in the reconciler, and the
// syncer run before leader election, so that a standby replica takes over
// with a synced store. It sets each widget's status.phase from its spec,
// as examples/crd --reconcile does.
//
//	ctrl --kubeconfig FILE --namespace demo --id replica-a
package main
