// Package corpus tests syncer-gen on real API modules that nobody here
// wrote, pulled from the Go module proxy at pinned versions: it generates
// their syncers, builds and vets them, and checks every resource name and
// scope against what upstream ships, the CRD manifests of the modules or
// the typed clients client-gen made for them, never against expectations
// written here. The test is skipped with -short (make unit); make test
// runs it.
package corpus
