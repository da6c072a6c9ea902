package generators

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"reflect"
	"testing"
)

// objSrc is a stand-in API type, type-checked from source.
const objSrc = `package api

type Phase string
type Meta struct {
	Name   string            ` + "`json:\"name\"`" + `
	Labels map[string]string ` + "`json:\"labels,omitempty\"`" + `
}
type TypeMeta struct {
	Kind string ` + "`json:\"kind,omitempty\"`" + `
}
type Obj struct {
	TypeMeta ` + "`json:\",inline\"`" + `
	Meta     ` + "`json:\"metadata\"`" + `
	Spec   Spec   ` + "`json:\"spec\"`" + `
	Hidden string ` + "`json:\"-\"`" + `
	unexported string
}
type Spec struct {
	Node    string            ` + "`json:\"nodeName\"`" + `
	Phase   Phase             ` + "`json:\"phase\"`" + `
	Count   *int64            ` + "`json:\"count\"`" + `
	Ok      bool              ` + "`json:\"ok\"`" + `
	Raw     []byte            ` + "`json:\"raw\"`" + `
	Ports   []Port            ` + "`json:\"ports\"`" + `
	Ref     *Ref              ` + "`json:\"ref\"`" + `
	Extra   *map[string]string ` + "`json:\"extra\"`" + `
	Weights map[string]float64 ` + "`json:\"weights\"`" + `
	NoTag   string
}
type Port struct{ Name string ` + "`json:\"name\"`" + ` }
type Ref struct{ Name string ` + "`json:\"name\"`" + ` }
`

func objType(t *testing.T) types.Type {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "api.go", objSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf := types.Config{Importer: importer.Default()}
	p, err := conf.Check("api", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Scope().Lookup("Obj").Type()
}

func field(n string) Step { return Step{Kind: StepField, GoName: n} }

var (
	ptr  = Step{Kind: StepPointer}
	each = Step{Kind: StepEach}
)

func key(k string) Step { return Step{Kind: StepKey, Key: k} }

func TestResolveFieldPath(t *testing.T) {
	obj := objType(t)
	tests := []struct {
		path   string
		steps  []Step
		format Format
		named  bool
	}{
		{".spec.nodeName", []Step{field("Spec"), field("Node")}, FormatString, false},
		{".spec.phase", []Step{field("Spec"), field("Phase")}, FormatString, true},
		{".spec.count", []Step{field("Spec"), field("Count"), ptr}, FormatInt, false},
		{".spec.ok", []Step{field("Spec"), field("Ok")}, FormatBool, false},
		{".spec.ports.name", []Step{field("Spec"), field("Ports"), each, field("Name")}, FormatString, false},
		{".spec.ports[*].name", []Step{field("Spec"), field("Ports"), each, field("Name")}, FormatString, false},
		{".spec.ref.name", []Step{field("Spec"), field("Ref"), ptr, field("Name")}, FormatString, false},
		{".spec.extra[k]", []Step{field("Spec"), field("Extra"), ptr, key("k")}, FormatString, false},
		{".spec.NoTag", []Step{field("Spec"), field("NoTag")}, FormatString, false},
		{".metadata.labels['a.b/c']", []Step{field("Meta"), field("Labels"), key("a.b/c")}, FormatString, false},
		{".kind", []Step{field("TypeMeta"), field("Kind")}, FormatString, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			steps, format, named, err := resolveFieldPath(obj, tt.path, token.Position{Column: 10}, "+syncer-gen:index")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(steps, tt.steps) || format != tt.format || named != tt.named {
				t.Errorf("got %v %v %v, want %v %v %v", steps, format, named, tt.steps, tt.format, tt.named)
			}
		})
	}
}

func TestResolveFieldPathErrors(t *testing.T) {
	obj := objType(t)
	// The path starts at column 10; errors point at the segment at fault.
	tests := []struct {
		path string
		typ  ErrorType
		col  int
	}{
		{"spec", ErrorTypeInvalid, 10},
		{".spec.", ErrorTypeInvalid, 16},
		{".spec.nodeNam", ErrorTypeNotFound, 15},
		{".spec.nodeName.x", ErrorTypeNotFound, 24},
		{".Spec.nodeName", ErrorTypeNotFound, 10},
		{".hidden", ErrorTypeNotFound, 10},
		{".unexported", ErrorTypeNotFound, 10},
		{".spec", ErrorTypeInvalid, 10},
		{".spec.ref", ErrorTypeInvalid, 15},
		{".metadata.labels", ErrorTypeInvalid, 19},
		{".metadata.labels[", ErrorTypeInvalid, 26},
		{".metadata.labels[]", ErrorTypeInvalid, 26},
		{".spec.nodeName[x]", ErrorTypeInvalid, 15},
		{".spec.weights[x]", ErrorTypeInvalid, 15},
		{".spec.raw", ErrorTypeInvalid, 15},
		{".spec.ref[*].name", ErrorTypeInvalid, 15},
		{".metadata.labels[*]", ErrorTypeInvalid, 19},
		{".spec.ports[*", ErrorTypeInvalid, 21},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, _, _, err := resolveFieldPath(obj, tt.path, token.Position{Filename: "x.go", Line: 3, Column: 10}, "+syncer-gen:index")
			if err == nil {
				t.Fatal("no error")
			}
			if err.Type != tt.typ || err.Pos.Column != tt.col {
				t.Errorf("got %s at column %d, want %s at %d (%v)", err.Type, err.Pos.Column, tt.typ, tt.col, err)
			}
		})
	}
}

func FuzzParseFieldPath(f *testing.F) {
	for _, s := range []string{".spec.nodeName", ".metadata.labels['a/b']", ".a[b].c", ".a[*].b", "[", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		segs, off, err := parseFieldPath(path)
		if err != nil {
			if off < 0 || off > len(path) {
				t.Fatalf("error offset %d outside %q", off, path)
			}
			return
		}
		if len(segs) == 0 {
			t.Fatalf("no segments and no error for %q", path)
		}
	})
}

// shadowSrc has JSON names that encoding/json gives to the shallowest
// field, to a tagged field over an untagged one at one depth, or to no
// field (two at one depth), and fields promoted from an unexported
// embedded struct.
const shadowSrc = `package api

type Obj struct {
	Spec   Spec   ` + "`json:\"spec\"`" + `
	Items  []Item ` + "`json:\"items\"`" + `
	Tie    Tie    ` + "`json:\"tie\"`" + `
	Tagged Tagged ` + "`json:\"tagged\"`" + `
	Hidden Hidden ` + "`json:\"hidden\"`" + `
}
type Base struct {
	Name string ` + "`json:\"name\"`" + `
	Only string ` + "`json:\"only\"`" + `
}
type Spec struct {
	Base ` + "`json:\",inline\"`" + `
	Name string ` + "`json:\"name\"`" + `
}
type Meta struct {
	Kind string ` + "`json:\"kind\"`" + `
}
type Item struct {
	Meta ` + "`json:\",inline\"`" + `
	Kind string ` + "`json:\"kind\"`" + `
	Name string ` + "`json:\"name\"`" + `
}
type A struct{ X string ` + "`json:\"x\"`" + ` }
type B struct{ X string ` + "`json:\"x\"`" + ` }
type Tie struct {
	A
	B
}
type Untagged struct{ Y string }
type Named struct {
	Z string ` + "`json:\"Y\"`" + `
}
type Tagged struct {
	Untagged
	Named
}
type common struct {
	Shared string ` + "`json:\"shared\"`" + `
}
type Hidden struct {
	common
}
`

func shadowType(t *testing.T) types.Type {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "api.go", shadowSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := (&types.Config{Importer: importer.Default()}).Check("api", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Scope().Lookup("Obj").Type()
}

// Index and filter paths resolve a JSON name as encoding/json does, as
// keep paths do: the shallowest field, a tagged one over an untagged one
// at one depth, none for two at one depth; through an unexported embedded
// struct by the name Go promotes.
func TestResolveFieldPathShadowing(t *testing.T) {
	obj := shadowType(t)
	for _, tt := range []struct {
		path  string
		steps []Step
	}{
		{".spec.name", []Step{field("Spec"), field("Name")}},
		{".spec.only", []Step{field("Spec"), field("Base"), field("Only")}},
		{".items[?(@.kind=='Pod')].name", []Step{field("Items"),
			filtered(Condition{Steps: []Step{field("Kind")}, Equal: true, Value: "Pod"}), field("Name")}},
		{".tagged.Y", []Step{field("Tagged"), field("Named"), field("Z")}},
		{".hidden.shared", []Step{field("Hidden"), field("Shared")}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			steps, _, _, err := resolveFieldPath(obj, tt.path, token.Position{Column: 10}, "+syncer-gen:index")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(steps, tt.steps) {
				t.Errorf("got  %+v\nwant %+v", steps, tt.steps)
			}
		})
	}
	if _, _, _, err := resolveFieldPath(obj, ".tie.x", token.Position{Column: 10}, "+syncer-gen:index"); err == nil || err.Type != ErrorTypeNotFound {
		t.Errorf(".tie.x: got %v, want a NotFound error (encoding/json fills no field of that name)", err)
	}
}
