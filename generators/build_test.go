package generators

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// apiType declares an API type and, unless noList, its list type.
func apiType(markers, name string, noList bool) string {
	s := markers + "\ntype " + name + " struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n\tSpec Spec `json:\"spec\"`\n}\n"
	if !noList {
		s += "type " + name + "List struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems []" + name + " `json:\"items\"`\n}\n"
	}
	return s
}

func apiFile(pkg string, body ...string) string {
	return "package " + pkg + "\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n" +
		"type Spec struct {\n\tNodeName string `json:\"nodeName\"`\n}\n\n" + strings.Join(body, "\n")
}

const groupDoc = "// +groupName=test.example.com\npackage v1\n"

// wantErr is an error expected on the last line of file that contains
// line, at the column where at starts in that line (after line's start).
type wantErr struct {
	file, line, at string
	typ            ErrorType
}

func TestBuildErrors(t *testing.T) {
	files := map[string]string{}
	var want []wantErr
	add := func(dir string, doc, types string, errs ...wantErr) {
		if doc == groupDoc && !strings.HasPrefix(dir, "c18") {
			// a group of its own, so that no two cases share an output package
			doc = strings.Replace(doc, "test.example.com", strings.ReplaceAll(dir, "/", "")+".example.com", 1)
		}
		if doc != "" {
			files[dir+"/doc.go"] = doc
		}
		files[dir+"/types.go"] = types
		for _, e := range errs {
			if e.file == "" {
				e.file = dir + "/types.go"
			}
			want = append(want, e)
		}
	}
	add("c01/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:indx=.spec.nodeName", "Thing", false)),
		wantErr{line: "+syncer-gen:indx", at: "+", typ: ErrorTypeUnknownKey})
	add("c02/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen-index=.spec.nodeName", "Thing", false)),
		wantErr{line: "+syncer-gen-index", at: "+", typ: ErrorTypeUnknownKey})
	add("c03/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:index(a=.spec.nodeName", "Thing", false)),
		wantErr{line: "index(a=", at: "=", typ: ErrorTypeSyntax})
	add("c04/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:index=.spec.nodeNam", "Thing", false)),
		wantErr{line: "index=.spec.nodeNam", at: ".nodeNam", typ: ErrorTypeNotFound})
	add("c05/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:index(s)=.spec", "Thing", false)),
		wantErr{line: "index(s)=.spec", at: ".spec", typ: ErrorTypeInvalid})
	add("c06/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:stripManagedFields=yes", "Thing", false)),
		wantErr{line: "stripManagedFields=yes", at: "yes", typ: ErrorTypeInvalid})
	add("c07/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen:index=.spec.nodeName", "Thing", false)),
		wantErr{line: "+syncer-gen:index", at: "+", typ: ErrorTypeRequired})
	add("c08/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen", "Thing", true)),
		wantErr{line: "+syncer-gen", at: "+", typ: ErrorTypeRequired})
	add("c09/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:plural=Things", "Thing", false)),
		wantErr{line: "plural=Things", at: "Things", typ: ErrorTypeInvalid})
	add("c10/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:index(a)=.spec.nodeName\n// +syncer-gen:index(a)=.metadata.name", "Thing", false)),
		wantErr{line: "index(a)=.metadata.name", at: "a)", typ: ErrorTypeDuplicate})
	add("c11/v1", groupDoc, apiFile("v1", apiType("// +genclient\n// +genclient:onlyVerbs=create\n// +syncer-gen", "Thing", false)),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeNotSupported})
	add("c12/v1", "", apiFile("v1", apiType("// +syncer-gen", "Thing", false)),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeRequired})
	add("c13/v1", "// +groupName=test.example.com\n// +syncer-gen:index=.spec.nodeName\npackage v1\n", apiFile("v1", apiType("", "Thing", false)),
		wantErr{file: "c13/v1/doc.go", line: "+syncer-gen:index", at: "+", typ: ErrorTypeNotSupported})
	add("c14/v1", groupDoc, apiFile("v1", "type Other struct{}\n\n// +syncer-gen\ntype Thing = Other\n"),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeRequired}) // the alias leads to Other, which has no OtherList
	add("c15/v1", groupDoc, apiFile("v1", "// +syncer-gen\ntype Thing string\n"),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeNotSupported})
	add("c16/v1", "package v1\n", "package v1\n\nimport other \"example.com/m/c17/v1\"\n\n// +syncer-gen\ntype Thing = other.Thing\n")
	add("c17/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen", "Thing", false)),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeDuplicate})
	add("c18/a/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen", "Thing", false)))
	add("c18/b/a/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen", "Thing", false)),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeDuplicate})
	add("c19/v1", groupDoc, "package v1\n\nimport corev1 \"k8s.io/api/core/v1\"\n\n// +syncer-gen\n// +syncer-gen:index=.spec.nodeNam\ntype Pod = corev1.Pod\n",
		wantErr{line: "index=.spec.nodeNam", at: ".nodeNam", typ: ErrorTypeNotFound})
	add("c20/notaversion", "// +groupName=test.example.com\npackage notaversion\n", apiFile("notaversion", apiType("// +syncer-gen", "Thing", false)),
		wantErr{line: "// +syncer-gen", at: "+", typ: ErrorTypeInvalid})
	add("c21/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncergen:index=.spec.nodeName", "Thing", false)),
		wantErr{line: "+syncergen:index", at: "+", typ: ErrorTypeUnknownKey})
	add("c22/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +resourceName=things\n// +syncer-gen:plural=thingies", "Thing", false)),
		wantErr{line: "plural=thingies", at: "thingies", typ: ErrorTypeConflict})
	add("c23/v1", groupDoc, apiFile("v1", apiType("// +genclient\n// +genclient:nonNamespaced\n// +syncer-gen\n// +syncer-gen:scope=Namespaced", "Thing", false)),
		wantErr{line: "scope=Namespaced", at: "Namespaced", typ: ErrorTypeConflict})
	add("c24/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:scope=Global", "Thing", false)),
		wantErr{line: "scope=Global", at: "Global", typ: ErrorTypeInvalid})
	add("c25/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +resourceName=widgets\n// +kubebuilder:resource:path=things,scope=Cluster", "Thing", false)),
		wantErr{line: "path=things", at: "things", typ: ErrorTypeConflict})
	add("c26/v1", groupDoc, apiFile("v1", apiType("// +syncer-gen\n// +Syncer-Gen:plural=things", "Thing", false)),
		wantErr{line: "+Syncer-Gen", at: "+", typ: ErrorTypeUnknownKey})
	// A package with every marker right gives no error.
	add("ok/v1", "// +groupName=ok.example.com\n// +syncer-gen\n// +syncer-gen:stripManagedFields\npackage v1\n",
		apiFile("v1", apiType("// +genclient\n// +syncer-gen:index(node)=.spec.nodeName\n// +syncer-gen:plural=thingies", "Thing", false),
			apiType("// +genclient\n// +genclient:noVerbs", "Quiet", false)))

	buildErrors(t, files, want)
}

// buildErrors builds the packages of files in a new module and checks
// that the errors are exactly want.
func buildErrors(t *testing.T, files map[string]string, want []wantErr) {
	t.Helper()
	dir := testmodule.Write(t, files)
	_, err := Build(Config{Patterns: []string{"./..."}, OutputPkg: "example.com/m/out", Dir: dir})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Build: %v, want an ErrorList", err)
	}
	got := map[string]bool{}
	for _, e := range list {
		rel, relErr := filepath.Rel(dir, e.Pos.Filename)
		if e.Pos.Filename == "" || relErr != nil {
			t.Errorf("error without a file in the module: %v", e)
			continue
		}
		got[fmt.Sprintf("%s:%d:%d %s", filepath.ToSlash(rel), e.Pos.Line, e.Pos.Column, e.Type)] = true
	}
	for _, w := range want {
		lines := strings.Split(files[w.file], "\n")
		n := -1
		for i, l := range lines { // the last: a marker given twice is at fault the second time
			if strings.Contains(l, w.line) {
				n = i
			}
		}
		if n < 0 {
			t.Fatalf("%s has no line with %q", w.file, w.line)
		}
		start := strings.Index(lines[n], w.line)
		k := fmt.Sprintf("%s:%d:%d %s", w.file, n+1, start+strings.Index(lines[n][start:], w.at)+1, w.typ)
		if !got[k] {
			t.Errorf("missing error %s", k)
		}
		delete(got, k)
	}
	for k := range got {
		t.Errorf("unexpected error %s", k)
	}
	if t.Failed() {
		t.Logf("all errors:\n%v", list)
	}
}

func TestBuildTypeFlag(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{"v1/doc.go": groupDoc, "v1/types.go": apiFile("v1", apiType("// +genclient", "Thing", false))})
	m, err := Build(Config{Types: []string{"example.com/m/v1.Thing"}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Packages) != 1 || len(m.Packages[0].Resources) != 1 || m.Packages[0].Resources[0].Resource != "things" {
		t.Fatalf("got %+v, want one package with things", m.Packages)
	}
	for _, tt := range []struct {
		typ  string
		want ErrorType
	}{
		{"example.com/m/v1.Nothing", ErrorTypeNotFound},
		{"Thing", ErrorTypeInvalid},
		{"example.com/m/nowhere.Thing", ErrorTypeLoad},
	} {
		_, err := Build(Config{Types: []string{tt.typ}, Dir: dir})
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 || list[0].Type != tt.want {
			t.Errorf("--type %s: got %v, want a %s error", tt.typ, err, tt.want)
		}
	}
}
