package templates

import (
	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// handlerFile renders a resource's typed handler and its funcs adapter.
func handlerFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	doc(f, "%sHandler receives the events of a %sSyncer: OnResyncStarted, OnAdd,\nOnUpdate, OnDelete, OnSync and OnError, one call at a time on a goroutine of its own; see runtime.Handler.", r.Name, r.Name)
	f.Type().Id(r.Name+"Handler").Op("=").Qual(runtimePkg, "Handler").Types(obj(r))
	f.Line()
	doc(f, "%sHandlerFuncs adapts functions to %sHandler; nil functions are skipped. InitialAddFunc,\nwhen set, gets the objects of an initial list (a resync's, a warm start's) and AddFunc\nthe objects created while the syncer watches; see runtime.InitialAdder.", r.Name, r.Name)
	f.Type().Id(r.Name+"HandlerFuncs").Op("=").Qual(runtimePkg, "HandlerFuncs").Types(obj(r))
}
