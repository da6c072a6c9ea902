// Package corpus tests syncer-gen on real API modules that nobody here
// wrote, pulled from the Go module proxy at pinned versions: it generates
// their syncers, builds and vets them, and checks every resource name and
// scope against what upstream ships, the CRD manifests of the modules or
// the typed clients client-gen made for them, never against expectations
// written here. It also generates projections (+syncer-gen:keep) of a
// few of those types and runs their generated tests, which check the
// projected decoders against the full ones on random objects of the real
// types. The test is skipped with -short (make unit); make test runs it.
package corpus
