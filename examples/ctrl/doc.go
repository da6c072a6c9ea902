// Command ctrl is a kubebuilder-style controller of widgets (examples/crd's
// API) that owns Jobs, built with controller-runtime, that reads widgets
// and Jobs from generated syncers instead of the Manager's cache: the
// reconciler (internal/controller) embeds the client.Client of
// ctrlsyncer.NewClient and watches with ctrlsyncer.For and Owns, and
// finds a widget's Jobs through an index declared by a marker on the Job
// alias (kinds). The syncers run before leader election, so that a
// standby replica takes over with synced stores. For each generation of a
// widget's spec it runs a Job and sets the widget's status.phase.
//
//	ctrl --kubeconfig FILE --namespace demo --id replica-a
//
// internal/twin/controller is the same controller on the Manager's cache:
// its suite runs both.
package main
