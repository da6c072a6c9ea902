package templates

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// syncerFile renders the resource binding, the typed Syncer and its constructor.
func syncerFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	k := r.Name
	if r.Projection != nil && r.Projection.MetadataOnly {
		doc(f, "%sResource binds a syncer to %s. %s keeps only metadata: the syncer asks the\nserver for PartialObjectMetadata rather than whole objects.", k, describe(r), k)
	} else {
		doc(f, "%sResource binds a syncer to %s.", k, describe(r))
	}
	f.Var().Id(k+"Resource").Op("=").Qual(runtimePkg, "Resource").Values(
		jen.Line().Id("Group").Op(":").Lit(r.Group),
		jen.Line().Id("Version").Op(":").Lit(r.Version),
		jen.Line().Id("Resource").Op(":").Lit(r.Resource),
		jen.Line().Id("Kind").Op(":").Lit(r.Kind),
		jen.Line().Id("Namespaced").Op(":").Lit(r.Namespaced),
		jen.Line().Id("NewList").Op(":").Func().Params().Qual(kruntimePkg, "Object").Block(
			jen.Return(jen.Op("&").Add(listType(r)).Values()),
		),
		jen.Do(func(s *jen.Statement) {
			if r.Projection != nil && r.Projection.MetadataOnly {
				s.Line().Id("MetadataOnly").Op(":").True()
			}
		}),
		jen.Line(),
	)
	f.Line()
	what := r.Resource
	if r.Projection != nil {
		what += ", projected to " + r.Name + ","
	}
	doc(f, "%sSyncer keeps a typed local copy of %s in sync with an API server.\nAdd handlers with AddHandler, then call Run; see runtime.Syncer.", k, what)
	f.Type().Id(k + "Syncer").Struct(jen.Op("*").Qual(runtimePkg, "Syncer").Types(obj(r)))
	f.Line()
	doc(f, "New%sSyncer returns a %sSyncer that talks to the server of cfg.%s", k, k, defaultsDoc(r))
	f.Func().Id("New"+k+"Syncer").Params(
		jen.Id("cfg").Op("*").Qual(restPkg, "Config"),
		jen.Id("opts").Op("...").Qual(runtimePkg, "Option"),
	).Params(jen.Op("*").Id(k+"Syncer"), jen.Error()).Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Qual(runtimePkg, "New").Types(obj(r)).Call(jen.Id("cfg"), jen.Id(k+"Resource"), withOptions(r)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(k+"Syncer").Values(jen.Dict{jen.Id("Syncer"): jen.Id("s")}), jen.Nil()),
	)
	f.Line()
	doc(f, "%sSyncerIn returns the %sSyncer of set for opts, adding it to the set on\nthe first request: the same options give the same runtime.Syncer. The set\nstarts it with the others and shares its connection; see syncerset.Add.", k, k)
	f.Func().Id(k+"SyncerIn").Params(
		jen.Id("set").Op("*").Qual(syncersetPkg, "Set"),
		jen.Id("opts").Op("...").Qual(runtimePkg, "Option"),
	).Params(jen.Op("*").Id(k+"Syncer"), jen.Error()).Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Qual(syncersetPkg, "Add").Types(obj(r)).Call(jen.Id("set"), jen.Id(k+"Resource"), withOptions(r)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id(k+"Syncer").Values(jen.Dict{jen.Id("Syncer"): jen.Id("s")}), jen.Nil()),
	)
	f.Line()
	doc(f, "Store returns the syncer's local copy of %s.", r.Resource)
	f.Func().Params(jen.Id("s").Op("*").Id(k + "Syncer")).Id("Store").Params().Id(k + "Store").Block(
		jen.Return(jen.Id(k + "Store").Values(jen.Dict{jen.Id("Store"): jen.Id("s").Dot("Syncer").Dot("Store").Call()})),
	)
	fn := optionsFunc(r)
	if fn == "" {
		return
	}
	var defaults []jen.Code
	for _, ix := range r.Indexes {
		defaults = append(defaults, jen.Qual(runtimePkg, "WithIndex").Call(jen.Lit(ix.Name), jen.Id(indexFunc(r, ix))))
	}
	if r.StripManagedFields {
		defaults = append(defaults, jen.Qual(runtimePkg, "WithStripManagedFields").Call())
	}
	f.Line()
	doc(f, "%s puts the options the markers declare before opts.", fn)
	f.Func().Id(fn).Params(jen.Id("opts").Index().Qual(runtimePkg, "Option")).Index().Qual(runtimePkg, "Option").Block(
		jen.Return(jen.Append(jen.Index().Qual(runtimePkg, "Option").ValuesFunc(func(g *jen.Group) {
			for _, d := range defaults {
				g.Line().Add(d)
			}
			g.Line()
		}), jen.Id("opts").Op("..."))),
	)
}

// defaultsDoc says which options the markers declare.
func defaultsDoc(r *generators.Resource) string {
	var parts []string
	if len(r.Indexes) > 0 {
		names := make([]string, len(r.Indexes))
		for i, ix := range r.Indexes {
			names[i] = ix.Method
		}
		parts = append(parts, "the indexes behind "+strings.Join(names, ", "))
	}
	if r.StripManagedFields {
		parts = append(parts, "runtime.WithStripManagedFields()")
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("\nThe markers declare %s; opts come after them.", strings.Join(parts, " and "))
}
