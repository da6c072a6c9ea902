package templates

import (
	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// driverFile renders the test helper: a syncer with no server and the
// driver that plays events into it.
func driverFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	doc(f, "%sDriver plays add, update, delete, resync and sync events into a %sSyncer\nwithout a server, synchronously, for unit tests; see runtime.Driver.", r.Name, r.Name)
	f.Type().Id(r.Name+"Driver").Op("=").Qual(runtimePkg, "Driver").Types(obj(r))
	f.Line()
	doc(f, "New%sDriver returns a %sSyncer with no server and the driver that feeds it.\nThe indexes and transforms the markers declare apply, then opts.", r.Name, r.Name)
	f.Func().Id("New"+r.Name+"Driver").Params(jen.Id("opts").Op("...").Qual(runtimePkg, "Option")).
		Params(jen.Op("*").Id(r.Name+"Syncer"), jen.Op("*").Id(r.Name+"Driver")).Block(
		jen.List(jen.Id("s"), jen.Id("d")).Op(":=").Qual(runtimePkg, "NewDriver").Types(obj(r)).Call(jen.Id(r.Name+"Resource"), withOptions(r)),
		jen.Return(jen.Op("&").Id(r.Name+"Syncer").Values(jen.Dict{jen.Id("Syncer"): jen.Id("s")}), jen.Id("d")),
	)
}
