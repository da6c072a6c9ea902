// Package controller is the plain controller-runtime twin of
// examples/ctrl/internal/controller: the same WidgetReconciler, on the
// Manager's cache and client, with For, Owns and an IndexField, as a
// kubebuilder project writes it before it switches to syncers. The suite
// of internal/controller runs both and requires the same outcome.
package controller
