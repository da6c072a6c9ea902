// Package crd holds the CustomResourceDefinition of the CRD example's
// widgets (shop.example.com_widgets.yaml, embedded) and Install, which
// applies it to a server and waits until the server serves it.
package crd
