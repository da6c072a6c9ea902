// Command crsyncer is the bench's cr-syncer contender (see bench/doc.go):
// the controller-runtime Manager of crcache with the generated
// WidgetSyncer as its controller's source and its reconciler's reader
// (ctrlsyncer). The parent runs it as bench/internal/child says.
package main
