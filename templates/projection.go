package templates

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

// projectionFile renders a projected type: its structs, its list, their
// deep copies, and From, the projection of a full object.
func projectionFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	p := r.Projection
	doc(f, "%s is a projection of %s: it keeps only\n%s\nand of metadata what a syncer needs (name, namespace, uid, resourceVersion,\ndeletionTimestamp), as its +syncer-gen:keep markers ask. Its decoders read\njust those fields off the wire; %sFrom projects a full object.",
		p.Name, qualified(r.TypePkg, r.Kind), keepList(p), p.Name)
	declareStruct(f, p.Root)
	for _, s := range p.Structs[1:] {
		if s.Generated {
			f.Line()
			doc(f, "%s is the part of %s that %s keeps.", s.Name, qualified(s.Upstream.Pkg, s.Upstream.Name), p.Name)
			declareStruct(f, s)
		}
	}
	f.Line()
	doc(f, "%sList is a list of %s, as a LIST of %s reads it.", p.Name, p.Name, r.Resource)
	f.Type().Id(p.Name+"List").Struct(
		jen.Qual(metav1Pkg, "TypeMeta").Tag(map[string]string{"json": ",inline"}),
		structField(p.ListMeta),
		structField(p.Items),
	)
	f.Line()
	doc(f, "%sFrom returns the projection of a full %s: a deep copy of the fields %s keeps.", p.Name, r.Kind, p.Name)
	f.Func().Id(p.Name+"From").Params(jen.Id("in").Op("*").Qual(r.TypePkg, r.Kind)).Op("*").Id(p.Name).Block(
		jen.Id("out").Op(":=").New(jen.Id(p.Name)),
		jen.Id(projectFunc(p.Root)).Call(jen.Id("out"), jen.Id("in")),
		jen.Return(jen.Id("out")),
	)
	f.Line()
	f.Func().Id(projectListFunc(p)).Params(jen.Id("out").Op("*").Id(p.Name+"List"), jen.Id("in").Op("*").Qual(p.List.Pkg, p.List.Name)).Block(
		jen.Id("out").Dot("TypeMeta").Op("=").Id("in").Dot("TypeMeta"),
		jen.Id("out").Dot(p.ListMeta.GoName).Op("=").Id("in").Dot(p.ListMeta.UpstreamName),
		jen.If(jen.Id("in").Dot(p.Items.UpstreamName).Op("!=").Nil()).Block(
			jen.Id("out").Dot(p.Items.GoName).Op("=").Make(jen.Index().Id(p.Name), jen.Len(jen.Id("in").Dot(p.Items.UpstreamName))),
			jen.For(jen.Id("i").Op(":=").Range().Id("in").Dot(p.Items.UpstreamName)).Block(
				jen.Id(projectFunc(p.Root)).Call(jen.Op("&").Id("out").Dot(p.Items.GoName).Index(jen.Id("i")), jen.Op("&").Id("in").Dot(p.Items.UpstreamName).Index(jen.Id("i"))),
			),
		),
	)
	for _, s := range p.Structs {
		f.Line()
		f.Func().Id(projectFunc(s)).Params(jen.Id("out").Op("*").Add(structType(s)), jen.Id("in").Op("*").Qual(s.Upstream.Pkg, s.Upstream.Name)).BlockFunc(func(g *jen.Group) {
			for _, fl := range s.Fields {
				in := func() *jen.Statement { return jen.Id("in").Dot(fl.UpstreamName) }
				out := func() *jen.Statement { return jen.Id("out").Dot(fl.GoName) }
				g.Add(copyInto(out, in, fl.Type, nil, true, 0)...)
			}
		})
	}
	for _, s := range p.Structs {
		if s.Generated {
			deepCopy(f, s.Name, s.Fields, s == p.Root)
		}
	}
	deepCopy(f, p.Name+"List", []*generators.Field{p.ListMeta, p.Items}, true)
}

// keepList lists the kept paths for documentation, one per line.
func keepList(p *generators.Projection) string {
	lines := make([]string, len(p.Keeps))
	for i, k := range p.Keeps {
		lines[i] = "  - " + k
	}
	return strings.Join(lines, "\n")
}

// qualified names a type for documentation: corev1.Pod as k8s.io/api/core/v1.Pod.
func qualified(pkg, name string) string { return pkg + "." + name }

// declareStruct declares the generated struct s.
func declareStruct(f *jen.File, s *generators.Struct) {
	fields := make([]jen.Code, len(s.Fields))
	for i, fl := range s.Fields {
		fields[i] = structField(fl)
	}
	f.Type().Id(s.Name).Struct(fields...)
}

// structField declares a field with the upstream field's tags; the tag of
// metadata kept in part names the fields it keeps (and so tells the
// snapshot's type fingerprint what the type holds).
func structField(fl *generators.Field) *jen.Statement {
	tags := parseTag(fl.Tag)
	if s := fl.Type.Struct; s != nil && !s.Generated && fl.Type.Kind == generators.TypeStruct && s.Upstream.Name == "ObjectMeta" {
		names := make([]string, len(s.Fields))
		for i, m := range s.Fields {
			names[i] = m.JSONName
		}
		tags["syncer-gen"] = "keep=" + strings.Join(names, ",")
	}
	var st *jen.Statement
	if fl.Embedded {
		st = typeCode(fl.Type)
	} else {
		st = jen.Id(fl.GoName).Add(typeCode(fl.Type))
	}
	if len(tags) > 0 {
		st.Tag(tags)
	}
	return st
}

// parseTag splits a struct tag into its keys and values, as reflect reads them.
func parseTag(tag string) map[string]string {
	out := map[string]string{}
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := strings.Index(tag, ":\"")
		if i <= 0 {
			break
		}
		key := tag[:i]
		rest := tag[i+1:]
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			break
		}
		v, err := strconv.Unquote(rest[:j+1])
		if err != nil {
			break
		}
		out[key] = v
		tag = rest[j+1:]
	}
	return out
}

// typeCode renders a type of a projected struct.
func typeCode(t *generators.Type) *jen.Statement {
	switch t.Kind {
	case generators.TypeStruct:
		return structType(t.Struct)
	case generators.TypePointer:
		return jen.Op("*").Add(typeCode(t.Elem))
	case generators.TypeSlice:
		return jen.Index().Add(typeCode(t.Elem))
	case generators.TypeMap:
		return jen.Map(typeCode(t.Key)).Add(typeCode(t.Elem))
	}
	switch {
	case t.Name == "any":
		return jen.Any()
	case t.Pkg == "":
		return jen.Id(t.Name)
	}
	return jen.Qual(t.Pkg, t.Name)
}

// structType renders a struct a projection keeps fields of: the generated
// one, or the upstream metav1.ObjectMeta and TypeMeta.
func structType(s *generators.Struct) *jen.Statement {
	if s.Generated {
		return jen.Id(s.Name)
	}
	return jen.Qual(s.Upstream.Pkg, s.Upstream.Name)
}

// Names of a projection's unexported functions, one of each per struct,
// and the projection of a full list (the list's name is no struct's).
func projectFunc(s *generators.Struct) string           { return "project" + s.Name }
func projectListFunc(p *generators.Projection) string   { return "project" + p.Name + "List" }
func unmarshalProtobufFunc(s *generators.Struct) string { return "unmarshalProtobuf" + s.Name }
func unmarshalJSONFunc(s *generators.Struct) string     { return "unmarshalJSON" + s.Name }

// expr builds an expression afresh at each use (jennifer statements are
// mutated by chaining).
type expr func() *jen.Statement

func index(base expr, i string) expr {
	return func() *jen.Statement { return base().Index(jen.Id(i)) }
}

func deref(base expr) expr {
	return func() *jen.Statement { return jen.Parens(jen.Op("*").Add(base())) }
}

func local(name string) expr { return func() *jen.Statement { return jen.Id(name) } }

// plainType tells whether a value of t is copied whole by assignment.
func plainType(t *generators.Type) bool {
	return t.Kind == generators.TypeUpstream && t.Under == nil && (t.Plain || t.Basic != "")
}

// plainCopy tells whether a value of t is copied by assignment (from:
// from the upstream type, which only for a type kept whole is t).
func plainCopy(t *generators.Type, from bool) bool {
	return plainType(t) || !from && t.Kind == generators.TypeStruct && plainStruct(t.Struct)
}

// plainStruct tells whether every kept field of s is copied by assignment.
func plainStruct(s *generators.Struct) bool {
	for _, fl := range s.Fields {
		if !plainType(fl.Type) {
			return false
		}
	}
	return true
}

// copyInto returns statements that set dst to a deep copy of src, both of
// type t (from: src is of the upstream type, to be projected). made is the
// type slices and maps are made of, nil for t's own.
func copyInto(dst, src expr, t *generators.Type, made *jen.Statement, from bool, depth int) []jen.Code {
	mk := func() *jen.Statement {
		if made != nil {
			return made.Clone()
		}
		return typeCode(t)
	}
	switch t.Kind {
	case generators.TypeStruct:
		switch {
		case from:
			return []jen.Code{jen.Id(projectFunc(t.Struct)).Call(jen.Op("&").Add(dst()), jen.Op("&").Add(src()))}
		case plainStruct(t.Struct):
			return []jen.Code{dst().Op("=").Add(src())}
		}
		return []jen.Code{src().Dot("DeepCopyInto").Call(jen.Op("&").Add(dst()))}
	case generators.TypePointer:
		body := []jen.Code{dst().Op("=").New(typeCode(t.Elem))}
		switch e := t.Elem; {
		case plainCopy(e, from):
			body = append(body, jen.Op("*").Add(dst()).Op("=").Op("*").Add(src()))
		case e.Kind == generators.TypeStruct && from:
			body = append(body, jen.Id(projectFunc(e.Struct)).Call(dst(), src()))
		case e.Kind == generators.TypeStruct || e.Kind == generators.TypeUpstream && e.Under == nil && e.DeepCopy:
			body = append(body, src().Dot("DeepCopyInto").Call(dst()))
		default:
			body = append(body, copyInto(deref(dst), deref(src), e, nil, from, depth+1)...)
		}
		return []jen.Code{jen.If(src().Op("!=").Nil()).Block(body...)}
	case generators.TypeSlice:
		body := []jen.Code{dst().Op("=").Make(mk(), jen.Len(src()))}
		if plainCopy(t.Elem, from) {
			body = append(body, jen.Copy(dst(), src()))
		} else {
			i := fmt.Sprintf("i%d", depth)
			body = append(body, jen.For(jen.Id(i).Op(":=").Range().Add(src())).Block(
				copyInto(index(dst, i), index(src, i), t.Elem, nil, from, depth+1)...))
		}
		return []jen.Code{jen.If(src().Op("!=").Nil()).Block(body...)}
	case generators.TypeMap:
		k, v := fmt.Sprintf("k%d", depth), fmt.Sprintf("v%d", depth)
		var each []jen.Code
		if plainCopy(t.Elem, from) {
			each = []jen.Code{dst().Index(jen.Id(k)).Op("=").Id(v)}
		} else {
			c := fmt.Sprintf("c%d", depth)
			each = append([]jen.Code{jen.Var().Id(c).Add(typeCode(t.Elem))}, copyInto(local(c), local(v), t.Elem, nil, from, depth+1)...)
			each = append(each, dst().Index(jen.Id(k)).Op("=").Id(c))
		}
		return []jen.Code{jen.If(src().Op("!=").Nil()).Block(
			dst().Op("=").Make(mk(), jen.Len(src())),
			jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Add(src())).Block(each...),
		)}
	}
	switch {
	case t.Under != nil && t.DeepCopy: // a named slice or map: its DeepCopyInto makes nil empty
		return []jen.Code{jen.If(src().Op("!=").Nil()).Block(src().Dot("DeepCopyInto").Call(jen.Op("&").Add(dst())))}
	case t.Under != nil:
		return copyInto(dst, src, t.Under, typeCode(t), from, depth)
	case plainType(t):
		return []jen.Code{dst().Op("=").Add(src())}
	case t.Name == "any":
		return []jen.Code{jen.If(src().Op("!=").Nil()).Block(dst().Op("=").Qual(kruntimePkg, "DeepCopyJSONValue").Call(src()))}
	}
	return []jen.Code{src().Dot("DeepCopyInto").Call(jen.Op("&").Add(dst()))}
}

// deepCopy renders DeepCopyInto and DeepCopy of a generated struct, and
// DeepCopyObject for the projected type and its list.
func deepCopy(f *jen.File, name string, fields []*generators.Field, object bool) {
	f.Line()
	doc(f, "DeepCopyInto copies the receiver into out; in must not be nil.")
	f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopyInto").Params(jen.Id("out").Op("*").Id(name)).BlockFunc(func(g *jen.Group) {
		g.Op("*").Id("out").Op("=").Op("*").Id("in")
		for _, fl := range fields {
			if plainCopy(fl.Type, false) {
				continue
			}
			in := func() *jen.Statement { return jen.Id("in").Dot(fl.GoName) }
			out := func() *jen.Statement { return jen.Id("out").Dot(fl.GoName) }
			g.Add(copyInto(out, in, fl.Type, nil, false, 0)...)
		}
	})
	f.Line()
	doc(f, "DeepCopy returns a deep copy of the receiver, nil for nil.")
	f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopy").Params().Op("*").Id(name).Block(
		jen.If(jen.Id("in").Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id("out").Op(":=").New(jen.Id(name)),
		jen.Id("in").Dot("DeepCopyInto").Call(jen.Id("out")),
		jen.Return(jen.Id("out")),
	)
	if !object {
		return
	}
	f.Line()
	doc(f, "DeepCopyObject returns a deep copy of the receiver as a runtime.Object.")
	f.Func().Params(jen.Id("in").Op("*").Id(name)).Id("DeepCopyObject").Params().Qual(kruntimePkg, "Object").Block(
		jen.If(jen.Id("c").Op(":=").Id("in").Dot("DeepCopy").Call(), jen.Id("c").Op("!=").Nil()).Block(jen.Return(jen.Id("c"))),
		jen.Return(jen.Nil()),
	)
}
