// Command syncer-gen generates typed syncers for Kubernetes API types: a
// list/watch source that streams the initial state with WatchList and falls
// back to paginated LIST + WATCH, a typed store with indexes and typed event
// handlers, over package github.com/syncer-gen/syncer-gen/runtime.
//
// Run syncer-gen --help for its flags and examples; see the README for the markers.
package main
