package templates

import (
	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// protobufFile renders the protobuf decoder of a projected type and its
// list: the methods apimachinery's protobuf serializer and the runtime's
// wire reader call (Reset, Unmarshal), and one function per struct that
// reads its kept fields, in any order, skipping the others by length.
func protobufFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	p := r.Projection
	list := p.Name + "List"
	for _, name := range []string{p.Name, list} {
		f.Line()
		doc(f, "Reset sets the receiver to zero, as the protobuf serializer does before Unmarshal.")
		f.Func().Params(jen.Id("m").Op("*").Id(name)).Id("Reset").Params().Block(jen.Op("*").Id("m").Op("=").Id(name).Values())
		f.Line()
		doc(f, "ProtoMessage marks %s as a protobuf message.", name)
		f.Func().Params(jen.Op("*").Id(name)).Id("ProtoMessage").Params().Block()
		f.Line()
		doc(f, "String formats the receiver for debugging.")
		f.Func().Params(jen.Id("m").Op("*").Id(name)).Id("String").Params().String().Block(
			jen.Return(jen.Qual("fmt", "Sprintf").Call(jen.Lit("%+v"), jen.Op("*").Id("m"))))
	}
	f.Line()
	doc(f, "Unmarshal reads the fields %s keeps from the protobuf message b, %s\n"+
		"(not b's envelope), and skips the others. A message it does not understand is\n"+
		"decoded by %s's own Unmarshal and projected: the result, error included, is\n"+
		"then that decoder's. The receiver is expected empty (Reset).",
		p.Name, qualified(r.TypePkg, r.Kind), r.Kind)
	f.Func().Params(jen.Id("m").Op("*").Id(p.Name)).Id("Unmarshal").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.If(jen.Id(unmarshalProtobufFunc(p.Root)).Call(jen.Id("m"), jen.Id("b")).Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.List(jen.Id("full"), jen.Err()).Op(":=").Qual(projPkg, "FullProtobuf").Call(jen.Id("b"), jen.Id(p.Name+"From")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Comment("Protobuf does not carry TypeMeta: the receiver's stays."),
		jen.Id("full").Dot("TypeMeta").Op("=").Id("m").Dot("TypeMeta"),
		jen.Op("*").Id("m").Op("=").Op("*").Id("full"),
		jen.Return(jen.Nil()),
	)
	f.Line()
	doc(f, "Unmarshal reads a LIST page in protobuf, each item as %s.Unmarshal does;\na page it does not understand is decoded as a %s and projected.", p.Name, qualified(p.List.Pkg, p.List.Name))
	f.Func().Params(jen.Id("m").Op("*").Id(list)).Id("Unmarshal").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.If(jen.Id("unmarshalProtobuf"+list).Call(jen.Id("m"), jen.Id("b")).Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Var().Id("full").Qual(p.List.Pkg, p.List.Name),
		jen.If(jen.Err().Op(":=").Id("full").Dot("Unmarshal").Call(jen.Id("b")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Comment("Protobuf does not carry TypeMeta: the receiver's stays."),
		jen.Id("full").Dot("TypeMeta").Op("=").Id("m").Dot("TypeMeta"),
		jen.Op("*").Id("m").Op("=").Id(list).Values(),
		jen.Id(projectListFunc(p)).Call(jen.Id("m"), jen.Op("&").Id("full")),
		jen.Return(jen.Nil()),
	)
	f.Line()
	protobufDecoder(f, "unmarshalProtobuf"+list, jen.Id(list), []*generators.Field{p.ListMeta, p.Items})
	for _, s := range protobufStructs(p) {
		f.Line()
		protobufDecoder(f, unmarshalProtobufFunc(s), structType(s), s.Fields)
	}
}

// protobufStructs returns the structs whose protobuf messages the
// projection reads: those reached from the root through fields on the
// wire, in the order of p.Structs.
func protobufStructs(p *generators.Projection) []*generators.Struct {
	return reached(p, func(s *generators.Struct) []*generators.Field {
		var out []*generators.Field
		for _, fl := range s.Fields {
			if fl.Proto != nil {
				out = append(out, fl)
			}
		}
		return out
	})
}

// reached returns the structs reached from p's root through the fields
// that next returns of each, in the order of p.Structs.
func reached(p *generators.Projection, next func(*generators.Struct) []*generators.Field) []*generators.Struct {
	seen := map[*generators.Struct]bool{p.Root: true}
	var walk func(s *generators.Struct)
	walk = func(s *generators.Struct) {
		for _, fl := range next(s) {
			if c := structOf(fl.Type); c != nil && !seen[c] {
				seen[c] = true
				walk(c)
			}
		}
	}
	walk(p.Root)
	var out []*generators.Struct
	for _, s := range p.Structs {
		if seen[s] {
			out = append(out, s)
		}
	}
	return out
}

// structOf returns the struct a field of type t keeps fields of (through
// pointers and slices), nil for a type kept whole.
func structOf(t *generators.Type) *generators.Struct {
	for t != nil {
		switch t.Kind {
		case generators.TypeStruct:
			return t.Struct
		case generators.TypePointer, generators.TypeSlice:
			t = t.Elem
		default:
			return nil
		}
	}
	return nil
}

// protobufDecoder renders the function that reads the protobuf message of
// a struct of type typ into m: its fields on the wire, by number.
func protobufDecoder(f *jen.File, name string, typ *jen.Statement, fields []*generators.Field) {
	f.Func().Id(name).Params(jen.Id("m").Op("*").Add(typ), jen.Id("b").Index().Byte()).Error().Block(
		jen.Id("r").Op(":=").Qual(projPkg, "NewProtoReader").Call(jen.Id("b")),
		jen.For(jen.Id("r").Dot("Next").Call()).Block(
			jen.Switch(jen.Id("r").Dot("Num").Call()).BlockFunc(func(g *jen.Group) {
				for _, fl := range fields {
					if fl.Proto == nil {
						continue
					}
					lv := func() *jen.Statement { return jen.Id("m").Dot(fl.GoName) }
					g.Case(jen.Lit(fl.Proto.Number)).Block(protobufField(fl.Proto.Wire, fl.Type, lv)...)
				}
				g.Default().Block(jen.Id("r").Dot("Skip").Call())
			}),
		),
		jen.Return(jen.Id("r").Dot("Err").Call()),
	)
}

// protobufField returns the statements that read one occurrence of a
// field of type t, encoded as wire, into lv: as the generated code of the
// built-in APIs does, the last value of a scalar, a message merged, a
// repeated value appended, a map entry added.
func protobufField(wire string, t *generators.Type, lv expr) []jen.Code {
	shape := t
	if t.Kind == generators.TypeUpstream && t.Under != nil {
		shape = t.Under
	}
	switch {
	case t.IsBytes():
		if t.Under != nil {
			return []jen.Code{lv().Op("=").Add(typeCode(t)).Call(jen.Id("r").Dot("CopyBytes").Call(jen.Index().Byte().Call(lv())))}
		}
		return []jen.Code{lv().Op("=").Id("r").Dot("CopyBytes").Call(lv())}
	case shape.Kind == generators.TypeMap && shape.Elem.Basic == "string":
		return []jen.Code{jen.Qual(projPkg, "StringEntry").Call(jen.Op("&").Id("r"), jen.Op("&").Add(lv()))}
	case shape.Kind == generators.TypeMap:
		return []jen.Code{jen.Qual(projPkg, "MessageEntry").Call(jen.Op("&").Id("r"), jen.Op("&").Add(lv()))}
	case shape.Kind == generators.TypeSlice:
		e := shape.Elem
		last := func() *jen.Statement { return lv().Index(jen.Len(lv()).Op("-").Lit(1)) }
		switch {
		case e.Kind == generators.TypePointer:
			return []jen.Code{
				lv().Op("=").Append(lv(), jen.New(typeCode(e.Elem))),
				jen.Id("r").Dot("Check").Call(decodeMessage(e.Elem, last, true)),
			}
		case isMessage(e):
			return []jen.Code{
				lv().Op("=").Append(lv(), typeCode(e).Values()),
				jen.Id("r").Dot("Check").Call(decodeMessage(e, last, false)),
			}
		case wire == "varint" && e.Basic == "bool":
			return []jen.Code{lv().Op("=").Qual(projPkg, "AppendBools").Call(jen.Op("&").Id("r"), lv())}
		case wire == "varint":
			return []jen.Code{lv().Op("=").Qual(projPkg, "AppendVarints").Call(jen.Op("&").Id("r"), lv())}
		case wire == "fixed64":
			return []jen.Code{lv().Op("=").Qual(projPkg, "AppendFloat64s").Call(jen.Op("&").Id("r"), lv())}
		case wire == "fixed32":
			return []jen.Code{lv().Op("=").Qual(projPkg, "AppendFloat32s").Call(jen.Op("&").Id("r"), lv())}
		}
		return []jen.Code{lv().Op("=").Append(lv(), protobufScalar(wire, e))}
	case shape.Kind == generators.TypePointer && isMessage(shape.Elem):
		return []jen.Code{
			jen.If(lv().Op("==").Nil()).Block(lv().Op("=").New(typeCode(shape.Elem))),
			jen.Id("r").Dot("Check").Call(decodeMessage(shape.Elem, lv, true)),
		}
	case shape.Kind == generators.TypePointer:
		return []jen.Code{jen.Id("v").Op(":=").Add(protobufScalar(wire, shape.Elem)), lv().Op("=").Op("&").Id("v")}
	case isMessage(t):
		return []jen.Code{jen.Id("r").Dot("Check").Call(decodeMessage(t, lv, false))}
	}
	return []jen.Code{lv().Op("=").Add(protobufScalar(wire, t))}
}

// isMessage tells whether a value of t is a protobuf message: a projected
// struct, or an upstream type with its own Unmarshal.
func isMessage(t *generators.Type) bool {
	return t.Kind == generators.TypeStruct || t.Kind == generators.TypeUpstream && t.Protobuf && t.Basic == "" && t.Under == nil
}

// decodeMessage returns a call that decodes the field's bytes into the
// message lv (a pointer when ptr) of type t.
func decodeMessage(t *generators.Type, lv expr, ptr bool) *jen.Statement {
	bytes := jen.Id("r").Dot("Bytes").Call()
	if t.Kind == generators.TypeStruct {
		target := lv()
		if !ptr {
			target = jen.Op("&").Add(lv())
		}
		return jen.Id(unmarshalProtobufFunc(t.Struct)).Call(target, bytes)
	}
	return lv().Dot("Unmarshal").Call(bytes)
}

// protobufScalar returns an expression reading one scalar of type t.
func protobufScalar(wire string, t *generators.Type) *jen.Statement {
	r := jen.Id("r")
	var v *jen.Statement
	switch {
	case wire == "bytes":
		v = r.Dot("String").Call()
		if t.Name == "string" && t.Pkg == "" {
			return v
		}
	case wire == "varint" && t.Basic == "bool":
		v = r.Dot("Varint").Call().Op("!=").Lit(0)
		if t.Name == "bool" && t.Pkg == "" {
			return v
		}
	case wire == "varint":
		v = r.Dot("Varint").Call()
	case wire == "fixed64":
		v = jen.Qual("math", "Float64frombits").Call(r.Dot("Fixed64").Call())
	case wire == "fixed32":
		v = jen.Qual("math", "Float32frombits").Call(r.Dot("Fixed32").Call())
	}
	return typeCode(t).Call(v)
}
