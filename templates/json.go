package templates

import (
	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// jsonFile renders the JSON decoders of a projected type and its list:
// UnmarshalJSON of each, and one function per struct that reads the
// members it keeps, skipping (and checking) the others. sigs.k8s.io/json
// calls the list's UnmarshalJSON for a LIST page, which reads every item
// into a new one: a page it would not decode as the full decoder does (a
// key twice) goes to the full decoder, as an object does.
func jsonFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	p := r.Projection
	doc(f, "UnmarshalJSON reads the members %s keeps from the JSON object b, %s,\n"+
		"and skips the others, checking the syntax of all. JSON it does not understand\n"+
		"(malformed, a key twice, a value of another type, invalid UTF-8) is decoded\n"+
		"into a %s by sigs.k8s.io/json, as apimachinery's JSON serializer does, and\n"+
		"projected: the result, error included, is then that decoder's. The receiver is\n"+
		"expected empty; null leaves it as it is.",
		p.Name, qualified(r.TypePkg, r.Kind), r.Kind)
	f.Func().Params(jen.Id("m").Op("*").Id(p.Name)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Id("d").Op(":=").Qual(projPkg, "NewJSONReader").Call(jen.Id("b")),
		jen.If(jen.Id("d").Dot("Object").Call()).Block(jen.Id(unmarshalJSONFunc(p.Root)).Call(jen.Id("d"), jen.Id("m"))),
		jen.If(jen.Id("d").Dot("Close").Call().Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.List(jen.Id("full"), jen.Err()).Op(":=").Qual(projPkg, "FullJSON").Call(jen.Id("b"), jen.Id(p.Name+"From")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("m").Op("=").Op("*").Id("full"),
		jen.Return(jen.Nil()),
	)
	list := p.Name + "List"
	f.Line()
	doc(f, "UnmarshalJSON reads a LIST page in JSON, each item into a new %s as its\n"+
		"UnmarshalJSON does. A page it does not understand, a key twice included (where\n"+
		"sigs.k8s.io/json decodes the second \"items\" into the items the first made,\n"+
		"merging them), is decoded by sigs.k8s.io/json into a\n%s\nand projected: the result, error included, is then that decoder's. The receiver\n"+
		"is expected empty.",
		p.Name, qualified(p.List.Pkg, p.List.Name))
	f.Func().Params(jen.Id("m").Op("*").Id(list)).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Id("d").Op(":=").Qual(projPkg, "NewJSONReader").Call(jen.Id("b")),
		jen.If(jen.Id("d").Dot("Object").Call()).Block(jen.Id("unmarshalJSON"+list).Call(jen.Id("d"), jen.Id("m"))),
		jen.If(jen.Id("d").Dot("Close").Call().Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.List(jen.Id("full"), jen.Err()).Op(":=").Qual(projPkg, "FullJSON").Call(jen.Id("b"),
			jen.Func().Params(jen.Id("in").Op("*").Qual(p.List.Pkg, p.List.Name)).Op("*").Id(list).Block(
				jen.Id("out").Op(":=").New(jen.Id(list)),
				jen.Id(projectListFunc(p)).Call(jen.Id("out"), jen.Id("in")),
				jen.Return(jen.Id("out")),
			)),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Op("*").Id("m").Op("=").Op("*").Id("full"),
		jen.Return(jen.Nil()),
	)
	f.Line()
	f.Func().Id("unmarshalJSON"+list).Params(jen.Id("d").Op("*").Qual(projPkg, "JSONReader"), jen.Id("m").Op("*").Id(list)).Block(
		jen.For(jen.Id("d").Dot("Member").Call()).Block(
			jen.Switch(jen.String().Call(jen.Id("d").Dot("Key").Call())).Block(
				jen.Case(jen.Lit("kind")).Block(jen.Id("m").Dot("TypeMeta").Dot("Kind").Op("=").Id("d").Dot("String").Call()),
				jen.Case(jen.Lit("apiVersion")).Block(jen.Id("m").Dot("TypeMeta").Dot("APIVersion").Op("=").Id("d").Dot("String").Call()),
				jen.Case(jen.Lit(p.ListMeta.JSONName)).Block(jen.Id("d").Dot("Value").Call(jen.Op("&").Id("m").Dot(p.ListMeta.GoName))),
				jen.Case(jen.Lit(p.Items.JSONName)).Block(jsonField(p.Items.Type, func() *jen.Statement { return jen.Id("m").Dot(p.Items.GoName) }, 0)...),
				jen.Default().Block(jen.Id("d").Dot("Skip").Call()),
			),
		),
	)
	for _, s := range jsonStructs(p) {
		f.Line()
		f.Func().Id(unmarshalJSONFunc(s)).Params(jen.Id("d").Op("*").Qual(projPkg, "JSONReader"), jen.Id("m").Op("*").Add(structType(s))).Block(
			jen.For(jen.Id("d").Dot("Member").Call()).Block(
				jen.Switch(jen.String().Call(jen.Id("d").Dot("Key").Call())).BlockFunc(func(g *jen.Group) {
					for _, mb := range s.JSON {
						fl := mb.Path[len(mb.Path)-1]
						lv := func() *jen.Statement {
							st := jen.Id("m")
							for _, step := range mb.Path {
								st = st.Dot(step.GoName)
							}
							return st
						}
						if fl.JSONQuoted {
							g.Case(jen.Lit(mb.Name)).Block(jen.Id("d").Dot("Fail").Call(jen.Lit(`a ",string" field`)))
							continue
						}
						g.Case(jen.Lit(mb.Name)).Block(jsonField(fl.Type, lv, 0)...)
					}
					g.Default().Block(jen.Id("d").Dot("Skip").Call())
				}),
			),
		)
	}
}

// jsonStructs returns the structs whose JSON objects the projection reads
// with a function of their own (not inlined), in the order of p.Structs.
func jsonStructs(p *generators.Projection) []*generators.Struct {
	return reached(p, func(s *generators.Struct) []*generators.Field {
		var out []*generators.Field
		for _, mb := range s.JSON {
			if fl := mb.Path[len(mb.Path)-1]; !fl.JSONQuoted {
				out = append(out, fl)
			}
		}
		return out
	})
}

// jsonField returns the statements that read a member's value of type t
// into lv, as sigs.k8s.io/json reads it into a zero value: values the
// reader does not decode itself (types with their own JSON decoding,
// values kept whole) are handed to sigs.k8s.io/json.
func jsonField(t *generators.Type, lv expr, depth int) []jen.Code {
	d := func() *jen.Statement { return jen.Id("d") }
	switch {
	case t.Kind == generators.TypeStruct:
		return []jen.Code{jen.If(d().Dot("Object").Call()).Block(jen.Id(unmarshalJSONFunc(t.Struct)).Call(d(), jen.Op("&").Add(lv())))}
	case t.Kind == generators.TypePointer && t.Elem.Kind == generators.TypeStruct:
		return []jen.Code{jen.If(d().Dot("Null").Call()).Block(lv().Op("=").Nil()).Else().Block(
			jen.Id("v").Op(":=").New(typeCode(t.Elem)),
			jen.If(d().Dot("Object").Call()).Block(jen.Id(unmarshalJSONFunc(t.Elem.Struct)).Call(d(), jen.Id("v"))),
			lv().Op("=").Id("v"),
		)}
	case t.Kind == generators.TypePointer && jsonScalar(t.Elem) != nil:
		return []jen.Code{jen.If(d().Dot("Null").Call()).Block(lv().Op("=").Nil()).Else().Block(
			jen.Id("v").Op(":=").Add(jsonScalar(t.Elem)),
			lv().Op("=").Op("&").Id("v"),
		)}
	case t.Kind == generators.TypeSlice && !t.IsBytes() && (t.Elem.Kind == generators.TypeStruct || jsonScalar(t.Elem) != nil ||
		t.Elem.Kind == generators.TypePointer && t.Elem.Elem.Kind == generators.TypeStruct):
		var each []jen.Code
		switch e := t.Elem; {
		case e.Kind == generators.TypeStruct:
			last := func() *jen.Statement { return lv().Index(jen.Len(lv()).Op("-").Lit(1)) }
			each = append([]jen.Code{lv().Op("=").Append(lv(), typeCode(e).Values())}, jsonField(e, last, depth+1)...)
		case e.Kind == generators.TypePointer:
			each = []jen.Code{
				jen.Var().Id("e").Add(typeCode(e)),
				jen.If(jen.Op("!").Add(d()).Dot("Null").Call()).Block(
					jen.Id("e").Op("=").New(typeCode(e.Elem)),
					jen.If(d().Dot("Object").Call()).Block(jen.Id(unmarshalJSONFunc(e.Elem.Struct)).Call(d(), jen.Id("e"))),
				),
				lv().Op("=").Append(lv(), jen.Id("e")),
			}
		default:
			each = []jen.Code{lv().Op("=").Append(lv(), jsonScalar(e))}
		}
		return []jen.Code{jen.If(d().Dot("Null").Call()).Block(lv().Op("=").Nil()).Else().If(d().Dot("Array").Call()).Block(
			lv().Op("=").Add(typeCode(t)).Values(),
			jen.For(d().Dot("Element").Call()).Block(each...),
		)}
	case isStringMap(t):
		return []jen.Code{jen.Qual(projPkg, "StringMap").Call(d(), jen.Op("&").Add(lv()))}
	}
	if s := jsonScalar(t); s != nil {
		return []jen.Code{lv().Op("=").Add(s)}
	}
	return []jen.Code{d().Dot("Value").Call(jen.Op("&").Add(lv()))}
}

// jsonScalar returns an expression reading a value of t, a basic type
// (or one defined over it) with no JSON decoding of its own; nil for any
// other type.
func jsonScalar(t *generators.Type) *jen.Statement {
	if t.Kind != generators.TypeUpstream || t.OwnJSON || t.Basic == "" {
		return nil
	}
	d := jen.Id("d")
	var v *jen.Statement
	switch t.Basic {
	case "string":
		v = d.Dot("String").Call()
	case "bool":
		v = d.Dot("Bool").Call()
	case "int", "uint", "uintptr":
		v = d.Dot(map[bool]string{true: "Uint", false: "Int"}[t.Basic != "int"]).Call(jen.Qual(strconvPkg, "IntSize"))
	case "int8", "int16", "int32", "int64":
		v = d.Dot("Int").Call(jen.Lit(bitsOf(t.Basic)))
	case "uint8", "byte", "uint16", "uint32", "uint64":
		v = d.Dot("Uint").Call(jen.Lit(bitsOf(t.Basic)))
	case "float32", "float64":
		v = d.Dot("Float").Call(jen.Lit(bitsOf(t.Basic)))
	default:
		return nil
	}
	if t.Pkg == "" && (t.Name == "string" || t.Name == "bool") {
		return v
	}
	return typeCode(t).Call(v)
}

func bitsOf(basic string) int {
	switch basic {
	case "int8", "uint8", "byte":
		return 8
	case "int16", "uint16":
		return 16
	case "int32", "uint32", "float32":
		return 32
	}
	return 64
}

// isStringMap tells whether t is a map of strings to strings (or of types
// defined over string without JSON decoding of their own): labels.
func isStringMap(t *generators.Type) bool {
	m := t
	if t.Kind == generators.TypeUpstream {
		if t.OwnJSON || t.Under == nil {
			return false
		}
		m = t.Under
	}
	str := func(x *generators.Type) bool {
		return x.Kind == generators.TypeUpstream && x.Basic == "string" && !x.OwnJSON
	}
	return m.Kind == generators.TypeMap && str(m.Key) && str(m.Elem)
}
