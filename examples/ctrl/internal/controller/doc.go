// Package controller is examples/ctrl's kubebuilder-style controller of
// widgets, which owns Jobs: WidgetReconciler embeds a client.Client and
// reads through it, as every kubebuilder scaffold does. It reads widgets
// and Jobs from generated syncers (the Client of ctrlsyncer.NewClient),
// and is otherwise the plain controller-runtime controller of
// internal/twin/controller, from which it differs by the lines that
// TestSwitchingIsAFewLines counts.
package controller
