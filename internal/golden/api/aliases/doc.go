// Package aliases gives markers to types that cannot be annotated, of
// k8s.io/api and of the fixture's own groups, through aliases: options, and
// projections (+syncer-gen:keep), which are syncers of their own beside
// the type's.
package aliases
