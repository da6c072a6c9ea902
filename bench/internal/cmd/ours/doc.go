// Command ours is the bench's syncer-gen contenders (see bench/doc.go):
// the syncers syncer-gen generates for the examples, over the runtime,
// with the options each contender names (the named part's ours-named and
// ours-named-list: a syncer of Secrets over the names of -names, with
// runtime.WithNames). It links the runtime and the
// generated packages (examples/builtin/syncers/core/v1 for ConfigMaps and
// their ConfigMapMeta projection, Pods and their NodePod projection, examples/crd/syncers for Widgets and
// their WidgetView), as a program using them does, and nothing of
// client-go's informers or controller-runtime. The parent runs it as
// bench/internal/child says.
package main
