package templates

import (
	"github.com/dave/jennifer/jen"
	"github.com/syncer-gen/syncer-gen/generators"
)

const projectionTestPkg = "github.com/syncer-gen/syncer-gen/projection/projectiontest"

// projectionTestFile renders the proof of a projected type's decoders: on
// random objects of the upstream type, and variants of their encodings,
// the projected decode equals the full decode projected with From, and
// of lists (and, for a projection of metadata only, of the objects'
// PartialObjectMetadata); and fuzz tests of the same, from those objects'
// and lists' encodings.
func projectionTestFile(f *jen.File, _ *generators.Package, r *generators.Resource) {
	p := r.Projection
	from := jen.Id(p.Name + "From")
	lists := func() []jen.Code {
		return []jen.Code{jen.New(jen.Qual(p.List.Pkg, p.List.Name)), jen.New(jen.Id(p.Name + "List"))}
	}
	if p.MetadataOnly {
		doc(f, "Test%sDecoders checks that %s's decoders give what the full decoders of\n%s give, projected with %sFrom: the same value, or the same error; and\nthe same of a %s's PartialObjectMetadata, which the syncer asks for.", p.Name, p.Name, r.Kind, p.Name, r.Kind)
	} else {
		doc(f, "Test%sDecoders checks that %s's decoders give what the full decoders of\n%s give, projected with %sFrom: the same value, or the same error.", p.Name, p.Name, r.Kind, p.Name)
	}
	f.Func().Id("Test" + p.Name + "Decoders").Params(jen.Id("t").Op("*").Qual("testing", "T")).BlockFunc(func(g *jen.Group) {
		if p.Protobuf {
			g.Id("t").Dot("Run").Call(jen.Lit("protobuf"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
				jen.Qual(projectionTestPkg, "Protobuf").Call(append([]jen.Code{jen.Id("t"), from.Clone()}, lists()...)...),
			))
		}
		g.Id("t").Dot("Run").Call(jen.Lit("json"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
			jen.Qual(projectionTestPkg, "JSON").Call(append([]jen.Code{jen.Id("t"), from.Clone()}, lists()...)...),
		))
		if p.MetadataOnly {
			g.Id("t").Dot("Run").Call(jen.Lit("partialObjectMetadata"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
				jen.Qual(projectionTestPkg, "PartialObjectMetadata").Call(jen.Id("t"), from.Clone(), jen.New(jen.Id(p.Name+"List")), jen.Lit(p.Protobuf)),
			))
		}
	})
	if p.Protobuf {
		f.Line()
		doc(f, "Fuzz%sProtobuf fuzzes %s.Unmarshal against %s's.", p.Name, p.Name, r.Kind)
		f.Func().Id("Fuzz" + p.Name + "Protobuf").Params(jen.Id("f").Op("*").Qual("testing", "F")).Block(
			jen.Qual(projectionTestPkg, "FuzzProtobuf").Call(jen.Id("f"), from.Clone()),
		)
	}
	f.Line()
	doc(f, "Fuzz%sJSON fuzzes %s.UnmarshalJSON against sigs.k8s.io/json into a %s.", p.Name, p.Name, r.Kind)
	f.Func().Id("Fuzz" + p.Name + "JSON").Params(jen.Id("f").Op("*").Qual("testing", "F")).Block(
		jen.Qual(projectionTestPkg, "FuzzJSON").Call(jen.Id("f"), from.Clone()),
	)
	f.Line()
	doc(f, "Fuzz%sJSONList fuzzes %sList.UnmarshalJSON against sigs.k8s.io/json into a %s.", p.Name, p.Name, p.List.Name)
	f.Func().Id("Fuzz" + p.Name + "JSONList").Params(jen.Id("f").Op("*").Qual("testing", "F")).Block(
		jen.Qual(projectionTestPkg, "FuzzJSONList").Call(append([]jen.Code{jen.Id("f"), from.Clone()}, lists()...)...),
	)
}
