package main

// The Job syncer of the controller's owned Jobs, generated from the alias
// in kinds (run by hack/update-codegen.sh). Widgets' syncer is
// examples/crd's.

//go:generate go tool syncer-gen -v --output-dir ./syncers --go-header-file ../../hack/boilerplate.go.txt ./kinds
