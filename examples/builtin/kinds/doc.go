// Package kinds selects the built-in types that examples/builtin syncs. One
// cannot put markers on k8s.io/api, so each type gets an alias here, and
// syncer-gen reads the markers on the alias: the syncer is generated for the
// aliased type, with the options given here.
package kinds
