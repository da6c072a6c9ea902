package templates

import (
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// storeFile renders a resource's typed store: a lookup method and an index
// function per marker-declared index.
func storeFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	k := r.Name
	doc(f, "%sStore is a %sSyncer's local copy of %s, safe for concurrent readers.\nObjects it returns are shared: do not modify them.", k, k, r.Resource)
	f.Type().Id(k + "Store").Struct(jen.Op("*").Qual(runtimePkg, "Store").Types(obj(r)))
	for _, ix := range r.Indexes {
		param := paramName(ix.Name)
		f.Line()
		doc(f, "%s returns the %s whose %s %s %s.", ix.Method, r.Resource, ix.Path, verb(ix), param)
		f.Func().Params(jen.Id("s").Id(k + "Store")).Id(ix.Method).Params(jen.Id(param).String()).Index().Add(obj(r)).Block(
			jen.Return(jen.Id("s").Dot("ByIndex").Call(jen.Lit(ix.Name), jen.Id(param))),
		)
	}
	for _, ix := range r.Indexes {
		f.Line()
		doc(f, "%s returns the values of %s for %s.", indexFunc(r, ix), ix.Path, ix.Method)
		f.Func().Id(indexFunc(r, ix)).Params(jen.Id("obj").Add(obj(r))).Index().String().Block(indexBody(ix)...)
	}
}

// verb says how an object relates to an index value: a path through a
// slice "has" it, any other "is" it.
func verb(ix *generators.Index) string {
	for _, s := range ix.Steps {
		if s.Kind == generators.StepEach || s.Kind == generators.StepFilter {
			return "has"
		}
	}
	return "is"
}

// indexFunc names the function that computes an index's values.
func indexFunc(r *generators.Resource, ix *generators.Index) string {
	return lowerFirst(r.Name) + upperFirst(ix.Name) + "Index"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// paramName names a lookup's parameter after its index, unless that name
// is taken by Go or by the receiver.
func paramName(name string) string {
	if token.IsKeyword(name) || types.Universe.Lookup(name) != nil || name == "s" {
		return "value"
	}
	return name
}

// indexBody renders the statements of an index function: a single value
// for a path of plain fields, else a walk that collects every value.
func indexBody(ix *generators.Index) []jen.Code {
	plain := true
	for _, s := range ix.Steps {
		plain = plain && s.Kind == generators.StepField
	}
	if plain {
		v := jen.Id("obj")
		for _, s := range ix.Steps {
			v = v.Dot(s.GoName)
		}
		return []jen.Code{jen.Return(jen.Index().String().Values(format(ix, v)))}
	}
	body := []jen.Code{jen.Var().Id("out").Index().String()}
	body = append(body, walk(ix, jen.Id("obj"), ix.Steps, 1)...)
	return append(body, jen.Return(jen.Id("out")))
}

// walk renders the steps from the value v on, appending each value reached to out.
func walk(ix *generators.Index, v *jen.Statement, steps []generators.Step, depth int) []jen.Code {
	if len(steps) == 0 {
		return []jen.Code{jen.Id("out").Op("=").Append(jen.Id("out"), format(ix, v))}
	}
	s, rest := steps[0], steps[1:]
	elem := jen.Id("x" + strconv.Itoa(depth))
	switch s.Kind {
	case generators.StepField:
		return walk(ix, v.Clone().Dot(s.GoName), rest, depth)
	case generators.StepPointer:
		// A selector goes through a pointer by itself; anything else needs
		// a *, in parentheses before an index.
		inner := v.Clone()
		switch {
		case len(rest) > 0 && rest[0].Kind == generators.StepKey:
			inner = jen.Parens(jen.Op("*").Add(v.Clone()))
		case len(rest) == 0 || rest[0].Kind != generators.StepField:
			inner = jen.Op("*").Add(v.Clone())
		}
		return []jen.Code{jen.If(v.Clone().Op("!=").Nil()).Block(walk(ix, inner, rest, depth)...)}
	case generators.StepEach:
		return []jen.Code{jen.For(jen.List(jen.Id("_"), elem.Clone()).Op(":=").Range().Add(v.Clone())).Block(walk(ix, elem.Clone(), rest, depth+1)...)}
	case generators.StepKey:
		return []jen.Code{jen.If(jen.List(elem.Clone(), jen.Id("ok")).Op(":=").Add(v.Clone()).Index(jen.Lit(s.Key)), jen.Id("ok")).Block(walk(ix, elem.Clone(), rest, depth+1)...)}
	case generators.StepFilter:
		return []jen.Code{jen.For(jen.List(jen.Id("_"), elem.Clone()).Op(":=").Range().Add(v.Clone())).Block(
			jen.If(passes(elem, s.Filter)).Block(walk(ix, elem.Clone(), rest, depth+1)...))}
	}
	panic("templates: unknown step kind")
}

// format renders the index string of the value v.
func format(ix *generators.Index, v *jen.Statement) *jen.Statement {
	switch ix.Format {
	case generators.FormatBool:
		if ix.Named {
			v = jen.Bool().Call(v)
		}
		return jen.Qual(strconvPkg, "FormatBool").Call(v)
	case generators.FormatInt:
		return jen.Qual(strconvPkg, "FormatInt").Call(jen.Int64().Call(v), jen.Lit(10))
	case generators.FormatUint:
		return jen.Qual(strconvPkg, "FormatUint").Call(jen.Uint64().Call(v), jen.Lit(10))
	}
	if ix.Named {
		return jen.String().Call(v)
	}
	return v
}
