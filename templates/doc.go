// Package templates renders a generators.Model to Go source with
// github.com/dave/jennifer: one Go package per API group and version, and
// per resource one file for each kind of artifact, each made by the file of
// this package of the same name:
//
//	<kind>_handler.go  the typed Handler and HandlerFuncs (handler.go)
//	<kind>_store.go    the typed Store with a method per marker-declared index (store.go)
//	<kind>_syncer.go   the Resource binding, the Syncer and its constructor (syncer.go)
//	<kind>_driver.go   the Driver that feeds a Syncer in unit tests, without a server (driver.go)
//	doc.go             the package documentation (docfile.go)
//
// and for a projection (+syncer-gen:keep), whose <name> is the projected
// type's rather than the kind:
//
//	<name>_projection.go       the projected type, its list, deep copies, <Name>From (projection.go)
//	<name>_protobuf.go         its protobuf decoder, for types that have protobuf (protobuf.go)
//	<name>_json.go             its JSON decoder (json.go)
//	<name>_projection_test.go  the proof of its decoders against the full ones (projectiontest.go)
//
// The generated code is thin: typed names and bindings over
// github.com/syncer-gen/syncer-gen/runtime, which does the work; a
// projection's decoders call github.com/syncer-gen/syncer-gen/projection.
package templates
