// Package kinds selects the built-in type examples/ctrl's controller owns:
// one cannot put markers on k8s.io/api, so Job gets an alias here, and
// syncer-gen reads the markers on the alias.
package kinds
