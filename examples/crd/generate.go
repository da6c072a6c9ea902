package main

// The CRD example generates its code the way a CRD project would, with go
// generate (run by hack/update-codegen.sh): deepcopy functions for the API
// types, then the syncers, both as tools of the module's go.mod.

//go:generate go tool deepcopy-gen --output-file zz_generated.deepcopy.go --go-header-file ../../hack/boilerplate.go.txt ./api/...
//go:generate go tool syncer-gen -v --output-dir ./syncers --go-header-file ../../hack/boilerplate.go.txt ./api/... ./views
