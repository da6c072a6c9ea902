package generators_test

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/generators"
	"github.com/syncer-gen/syncer-gen/internal/testmodule"
	"github.com/syncer-gen/syncer-gen/templates"
)

// idxAPI is a kind with an index of every form the index and filter
// tests accept: through pointers, lists, maps, inlined and embedded
// structs (JSON's shadowing, an embedded pointer, an unexported embedded
// struct), filters with literals at the ends of their fields' ranges.
const idxAPI = `// +groupName=idx.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type Phase string
type Level uint8
type Huge uint64

// +syncer-gen
// +syncer-gen:index(node)=.spec.nodeName
// +syncer-gen:index(phase)=.spec.phase
// +syncer-gen:index(count)=.spec.count
// +syncer-gen:index(ok)=.spec.ok
// +syncer-gen:index(portName)=.spec.ports.name
// +syncer-gen:index(portEach)=.spec.ports[*].name
// +syncer-gen:index(ref)=.spec.ref.name
// +syncer-gen:index(extra)=.spec.extra[k]
// +syncer-gen:index(noTag)=.spec.NoTag
// +syncer-gen:index(team)=.metadata.labels['a.b/c']
// +syncer-gen:index(app)=.metadata.labels[app]
// +syncer-gen:index(kind)=.kind
// +syncer-gen:index(owner)=.metadata.ownerReferences[?(@.controller==true && @.kind=="Obj" && @.apiVersion=='idx.example.com/v1')].name
// +syncer-gen:index(o1)=.spec.owners[?( @.controller == true && @.kind=='CronJob'&&@.index!=-2 && @.size==3 && @.ref.name!="x" )].name
// +syncer-gen:index(o2)=.spec.owners[?@.kind=='a]b'].index
// +syncer-gen:index(ptrs)=.spec.ptrs[?(@.name=='x')].name
// +syncer-gen:index(refs)=.spec.refs[?(@.name=='x')].name
// +syncer-gen:index(bounds)=.spec.owners[?(@.index==2147483647 && @.index!=-2147483648 && @.size==4294967295 && @.tiny==-128 && @.big==18446744073709551615 && @.level==255)].name
// +syncer-gen:index(shadowed)=.spec.name
// +syncer-gen:index(shallow)=.spec.only
// +syncer-gen:index(itemKind)=.spec.items[?(@.kind=='Pod' && @.shared!='x')].name
// +syncer-gen:index(tagged)=.spec.Y
// +syncer-gen:index(hidden)=.spec.shared
// +syncer-gen:index(deep)=.spec.deep
type Obj struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec Spec ` + "`json:\"spec\"`" + `
}

type ObjList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Obj     ` + "`json:\"items\"`" + `
}

func (in *Obj) DeepCopyObject() runtime.Object     { out := *in; return &out }
func (in *ObjList) DeepCopyObject() runtime.Object { out := *in; return &out }

type Spec struct {
	Base ` + "`json:\",inline\"`" + `
	Untagged
	Named
	common
	*Ptr
	NodeName string             ` + "`json:\"nodeName\"`" + `
	Phase    Phase              ` + "`json:\"phase\"`" + `
	Count    *int64             ` + "`json:\"count\"`" + `
	Ok       bool               ` + "`json:\"ok\"`" + `
	Ports    []Port             ` + "`json:\"ports\"`" + `
	Ref      *Ref               ` + "`json:\"ref\"`" + `
	Extra    *map[string]string ` + "`json:\"extra\"`" + `
	NoTag    string
	Owners   []Owner            ` + "`json:\"owners\"`" + `
	Ptrs     *[]Ref             ` + "`json:\"ptrs\"`" + `
	Refs     []*Ref             ` + "`json:\"refs\"`" + `
	Name     string             ` + "`json:\"name\"`" + `
	Items    []Item             ` + "`json:\"items\"`" + `
}
type Base struct {
	Name string ` + "`json:\"name\"`" + `
	Only string ` + "`json:\"only\"`" + `
}
type Untagged struct{ Y string }
type Named struct {
	Z string ` + "`json:\"Y\"`" + `
}
type common struct {
	Shared string ` + "`json:\"shared\"`" + `
}
type Ptr struct {
	Deep string ` + "`json:\"deep\"`" + `
}
type Port struct {
	Name string ` + "`json:\"name\"`" + `
}
type Ref struct {
	Name string ` + "`json:\"name\"`" + `
}
type Owner struct {
	Kind       string ` + "`json:\"kind\"`" + `
	Name       string ` + "`json:\"name\"`" + `
	Controller *bool  ` + "`json:\"controller\"`" + `
	Index      int32  ` + "`json:\"index\"`" + `
	Size       uint   ` + "`json:\"size\"`" + `
	Ref        *Ref   ` + "`json:\"ref\"`" + `
	Tiny       int8   ` + "`json:\"tiny\"`" + `
	Big        Huge   ` + "`json:\"big\"`" + `
	Level      Level  ` + "`json:\"level\"`" + `
}
type Meta struct {
	Kind string ` + "`json:\"kind\"`" + `
}
type Item struct {
	Meta ` + "`json:\",inline\"`" + `
	common
	Kind string ` + "`json:\"kind\"`" + `
	Name string ` + "`json:\"name\"`" + `
}
`

// deepCopies makes the kinds of a package runtime.Objects, for the
// full syncers (a shallow copy: only building is at stake).
func deepCopies(kinds ...string) string {
	s := "package v1\n\nimport \"k8s.io/apimachinery/pkg/runtime\"\n"
	for _, k := range kinds {
		s += "\nfunc (in *" + k + ") DeepCopyObject() runtime.Object { out := *in; return &out }\n"
	}
	return s
}

// Whatever the generator accepts, its output compiles and passes go vet,
// and its generated tests pass (the projected decoders agree with the full
// ones): every marker form the tests of this package accept, in one
// module. A test that accepts a new form adds it here.
func TestAcceptedMarkersCompile(t *testing.T) {
	alias := func(name, typ string, markers ...string) string {
		return "// +syncer-gen\n// " + strings.Join(append([]string{}, markers...), "\n// ") + "\ntype " + name + " = " + typ + "\n\n"
	}
	files := maps.Clone(generators.ClashFiles)
	maps.Copy(files, map[string]string{
		"api/v1/types.go":          generators.KeepAPI,
		"api/v1/deepcopy.go":       deepCopies("Thing", "ThingList", "Clash", "ClashList"),
		"api/clash/v1/deepcopy.go": deepCopies("Clash", "ClashList"),
		"api/own/v1/types.go": strings.Replace(strings.Replace(generators.KeepAPI, "keep.example.com", "own.example.com", 1),
			"type Thing struct", "// +syncer-gen\n// +syncer-gen:keep=.status\ntype Thing struct", 1),
		"api/own/v1/deepcopy.go": deepCopies("Thing", "ThingList", "Clash", "ClashList"),
		"api/idx/v1/types.go":    idxAPI,
		"views/views.go": "package views\n\nimport (\n\tv1 \"example.com/m/api/v1\"\n\tclashv1 \"example.com/m/api/clash/v1\"\n\tcorev1 \"k8s.io/api/core/v1\"\n)\n\n" +
			alias("Slim", "v1.Thing", "+syncer-gen:keep=.spec.ports[*].name", "+syncer-gen:keep=.spec.shared", "+syncer-gen:keep=.spec.ref.name",
				"+syncer-gen:keep=.status.phase", "+syncer-gen:keep=.metadata.labels", "+syncer-gen:index(port)=.spec.ports.name", "+syncer-gen:index(shared)=.spec.shared") +
			alias("Full", "v1.Thing", "+syncer-gen:index(node)=.spec.nodeName") +
			alias("Flat", "v1.Thing", "+syncer-gen:keep=.spec.zone", "+syncer-gen:keep=.spec.rack.row", "+syncer-gen:keep=.spec.nodeName",
				"+syncer-gen:index=.spec.zone", "+syncer-gen:index=.spec.rack.row") +
			alias("Ports", "v1.Thing", "+syncer-gen:keep=.spec.ports[*].name", "+syncer-gen:keep=.spec.ports[*].port",
				"+syncer-gen:index(web)=.spec.ports[?(@.port==80 && @.name!='debug')].name") +
			alias("NodePod", "corev1.Pod", "+syncer-gen:keep=.spec.securityContext.runAsUser", "+syncer-gen:keep=.spec.containers[*].securityContext.privileged",
				"+syncer-gen:keep=.spec.resourceClaims[*].name", "+syncer-gen:keep=.spec.containers[*].resources.claims[*].name",
				"+syncer-gen:keep=.metadata.ownerReferences", "+syncer-gen:keep=.status.podIPs",
				"+syncer-gen:index(owner)=.metadata.ownerReferences[?(@.controller==true && @.kind=='ReplicaSet')].name") +
			alias("ClashSlim", "clashv1.Clash", "+syncer-gen:keep=.a.x", "+syncer-gen:keep=.b.x", "+syncer-gen:keep=.c.x", "+syncer-gen:keep=.d.x", "+syncer-gen:keep=.e.x"),
	})
	dir := testmodule.Write(t, files)
	m, err := generators.Build(generators.Config{Patterns: []string{"./views", "./api/own/...", "./api/idx/..."}, OutputPkg: testmodule.Path + "/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := templates.Render(m, templates.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range out {
		p := filepath.Join(dir, "out", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "-count=1", "./out/..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s of the generated code: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
}
