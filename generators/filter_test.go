package generators

import (
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// ownedSrc is a stand-in API type with a list of owner references, as
// metav1.ObjectMeta has, type-checked from source.
const ownedSrc = `package api

type Owned struct {
	Meta Meta ` + "`json:\"metadata\"`" + `
	Ptrs *[]Ref ` + "`json:\"ptrs\"`" + `
	Refs []*Ref ` + "`json:\"refs\"`" + `
	Name string ` + "`json:\"name\"`" + `
}
type Meta struct {
	Owners []Owner ` + "`json:\"ownerReferences\"`" + `
}
type Kind string
type Owner struct {
	Kind       Kind   ` + "`json:\"kind\"`" + `
	Name       string ` + "`json:\"name\"`" + `
	Controller *bool  ` + "`json:\"controller\"`" + `
	Index      int32  ` + "`json:\"index\"`" + `
	Size       uint   ` + "`json:\"size\"`" + `
	Ref        *Ref   ` + "`json:\"ref\"`" + `
	Weight     float64 ` + "`json:\"weight\"`" + `
	Big        uint64 ` + "`json:\"big\"`" + `
	Tiny       int8   ` + "`json:\"tiny\"`" + `
}
type Ref struct{ Name string ` + "`json:\"name\"`" + ` }
`

func ownedType(t *testing.T) types.Type {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "api.go", ownedSrc, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := (&types.Config{Importer: importer.Default()}).Check("api", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Scope().Lookup("Owned").Type()
}

func filtered(conds ...Condition) Step { return Step{Kind: StepFilter, Filter: conds} }

func TestResolveFilteredPath(t *testing.T) {
	owned := ownedType(t)
	owners := []Step{field("Meta"), field("Owners")}
	tests := []struct {
		path  string
		steps []Step
	}{
		{".metadata.ownerReferences[?(@.controller==true)].name", append(owners,
			filtered(Condition{Steps: []Step{field("Controller"), ptr}, Equal: true, Value: true}), field("Name"))},
		{".metadata.ownerReferences[?@.controller==true].name", append(owners,
			filtered(Condition{Steps: []Step{field("Controller"), ptr}, Equal: true, Value: true}), field("Name"))},
		{`.metadata.ownerReferences[?( @.controller == true && @.kind=='CronJob'&&@.index!=-2 && @.size==3 && @.ref.name!="x" )].name`, append(owners,
			filtered(
				Condition{Steps: []Step{field("Controller"), ptr}, Equal: true, Value: true},
				Condition{Steps: []Step{field("Kind")}, Equal: true, Value: "CronJob"},
				Condition{Steps: []Step{field("Index")}, Equal: false, Value: -2},
				Condition{Steps: []Step{field("Size")}, Equal: true, Value: 3},
				Condition{Steps: []Step{field("Ref"), ptr, field("Name")}, Equal: false, Value: "x"},
			), field("Name"))},
		{".metadata.ownerReferences[?(@.kind=='a]b')].index", append(owners,
			filtered(Condition{Steps: []Step{field("Kind")}, Equal: true, Value: "a]b"}), field("Index"))},
		{".ptrs[?(@.name=='x')].name", []Step{field("Ptrs"), ptr,
			filtered(Condition{Steps: []Step{field("Name")}, Equal: true, Value: "x"}), field("Name")}},
		{".refs[?(@.name=='x')].name", []Step{field("Refs"),
			filtered(Condition{Steps: []Step{ptr, field("Name")}, Equal: true, Value: "x"}), ptr, field("Name")}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			steps, _, _, err := resolveFieldPath(owned, tt.path, token.Position{Column: 10}, "+syncer-gen:index")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(steps, tt.steps) {
				t.Errorf("got  %+v\nwant %+v", steps, tt.steps)
			}
		})
	}
}

func TestResolveFilteredPathErrors(t *testing.T) {
	owned := ownedType(t)
	// The path starts at column 10; each error points at the part at
	// fault: at marks it in the path.
	tests := []struct {
		path, at string
		typ      ErrorType
	}{
		{".metadata.ownerReferences[?(@.kind='CronJob')].name", "='CronJob'", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.kind=='CronJob'].name", "].name", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.kind=='CronJob')", "", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.kind=='CronJob) ].name", "'CronJob) ].name", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(kind=='CronJob')].name", "kind", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@==true)].name", "==true", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.controller)].name", ")].name", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.controller==yes)].name", "yes", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.controller==true || @.kind=='a')].name", "|| @", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.kidn=='CronJob')].name", "@.kidn", ErrorTypeNotFound},
		{".metadata.ownerReferences[?(@.kind.name=='CronJob')].name", "@.kind.name", ErrorTypeNotFound},
		{".metadata.ownerReferences[?(@.kind==true)].name", "true)", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.controller=='true')].name", "'true'", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.index=='1')].name", "'1'", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.size==-1)].name", "-1", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.ref=='x')].name", "@.ref", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.weight==1)].name", "@.weight", ErrorTypeInvalid},
		{".name[?(@.x=='y')]", ".name", ErrorTypeInvalid},
		{".metadata[?(@.x=='y')].name", ".metadata", ErrorTypeInvalid},
		{".metadata.ownerReferences[?(@.controller==true)].nam", ".nam", ErrorTypeNotFound},
		{".metadata.ownerReferences[?(@.controller==true)]", ".ownerReferences", ErrorTypeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, _, _, err := resolveFieldPath(owned, tt.path, token.Position{Filename: "x.go", Line: 3, Column: 10}, "+syncer-gen:index")
			if err == nil {
				t.Fatal("no error")
			}
			col := 10 + strings.LastIndex(tt.path, tt.at)
			if tt.at == "" {
				col = 10 + len(tt.path)
			}
			if err.Type != tt.typ || err.Pos.Column != col {
				t.Errorf("got %s at column %d, want %s at %d (%v)", err.Type, err.Pos.Column, tt.typ, col, err)
			}
		})
	}
}

// A literal out of its field's range, or not an integer for an integer
// field, is refused at the literal: generated code would not compile
// ("constant 3000000000 overflows int32"). int and uint are taken as 32
// bits, their size on some platforms. At the ends of each range it is taken.
func TestFilterLiteralRange(t *testing.T) {
	owned := ownedType(t)
	for _, lit := range []string{"@.index==3000000000", "@.index!=2147483648", "@.index==-2147483649", "@.index==1.5", "@.index==1e3",
		"@.size==-1", "@.size==4294967296", "@.tiny==128", "@.tiny==-129", "@.big==-1", "@.big==18446744073709551616", "@.big==.5"} {
		path := ".metadata.ownerReferences[?(" + lit + ")].name"
		_, _, _, err := resolveFieldPath(owned, path, token.Position{Filename: "x.go", Line: 3, Column: 10}, "+syncer-gen:index")
		if col := 10 + strings.IndexAny(path, "=!") + 2; err == nil || err.Type != ErrorTypeInvalid || err.Pos.Column != col {
			t.Errorf("%s: got %v, want an Invalid error at column %d, the literal", lit, err, col)
		}
	}
	path := ".metadata.ownerReferences[?(@.index==2147483647 && @.index!=-2147483648 && @.size==4294967295 && @.tiny==-128 && @.big==18446744073709551615)].name"
	steps, _, _, err := resolveFieldPath(owned, path, token.Position{Column: 10}, "+syncer-gen:index")
	if err != nil {
		t.Fatal(err)
	}
	var values []any
	for _, c := range steps[2].Filter {
		values = append(values, c.Value)
	}
	if want := []any{2147483647, -2147483648, 4294967295, -128, uint64(18446744073709551615)}; !reflect.DeepEqual(values, want) {
		t.Errorf("literals %#v, want %#v", values, want)
	}
}

// A filter in a marker, through Build: its value may hold spaces and both
// quotes; an error in it is placed at file:line:col of the part at fault.
func TestBuildFilterMarkers(t *testing.T) {
	good := "// +syncer-gen\n// +syncer-gen:index(owner)=.metadata.ownerReferences[?(@.controller==true && @.kind==\"Thing\" && @.apiVersion=='f.example.com/v1')].name"
	bad := "// +syncer-gen\n// +syncer-gen:index(owner)=.metadata.ownerReferences[?(@.controller==true && @.knid=='Thing')].name"
	files := map[string]string{
		"good/v1/doc.go":   "// +groupName=good.example.com\npackage v1\n",
		"good/v1/types.go": apiFile("v1", apiType(good, "Thing", false)),
		"bad/v1/doc.go":    "// +groupName=bad.example.com\npackage v1\n",
		"bad/v1/types.go":  apiFile("v1", apiType(bad, "Thing", false)),
	}
	dir := testmodule.Write(t, files)
	_, err := Build(Config{Patterns: []string{"./bad/..."}, OutputPkg: "example.com/m/out", Dir: dir})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("Build of a marker with a misspelt field in its filter: %v; want one error", err)
	}
	e := list[0]
	line := strings.Split(files["bad/v1/types.go"], "\n")
	n := 0
	for n < len(line) && !strings.Contains(line[n], "@.knid") {
		n++
	}
	rel, _ := filepath.Rel(dir, e.Pos.Filename)
	if got, want := fmt.Sprintf("%s:%d:%d %s", filepath.ToSlash(rel), e.Pos.Line, e.Pos.Column, e.Type),
		fmt.Sprintf("bad/v1/types.go:%d:%d %s", n+1, strings.Index(line[n], "@.knid")+1, ErrorTypeNotFound); got != want {
		t.Errorf("error at %s, want %s (%v)", got, want, e)
	}
	if !strings.Contains(e.Detail, `did you mean "kind"?`) {
		t.Errorf("the error does not suggest the field: %v", e)
	}

	m, err := Build(Config{Patterns: []string{"./good/..."}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ix := m.Packages[0].Resources[0].Indexes[0]
	want := filtered(
		Condition{Steps: []Step{field("Controller"), ptr}, Equal: true, Value: true},
		Condition{Steps: []Step{field("Kind")}, Equal: true, Value: "Thing"},
		Condition{Steps: []Step{field("APIVersion")}, Equal: true, Value: "f.example.com/v1"},
	)
	if len(ix.Steps) != 4 || !reflect.DeepEqual(ix.Steps[2], want) {
		t.Errorf("the index's steps: %+v; want a filtered step %+v", ix.Steps, want)
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"[?(@.a==1)]", "[?@.a=='x' && @.b!=true]", "[?(@.a.b==\"]\")]", "[?(", "[?@.", "[?@.a==-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		path := ".x" + text
		if !strings.HasPrefix(text, "[?") {
			return
		}
		f, next, err := parseFilter(path, 2)
		if next < 0 || next > len(path) {
			t.Fatalf("offset %d outside %q", next, path)
		}
		if err == nil && (f == nil || len(f.conds) == 0 || path[2:next] != f.text) {
			t.Fatalf("parsed %q as %+v up to %d", path, f, next)
		}
	})
}
