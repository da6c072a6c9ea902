package generators

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// keepAPI is an API package whose Thing has a field of every shape a
// keep path can meet.
const keepAPI = `// +groupName=keep.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type Thing struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec   ThingSpec   ` + "`json:\"spec\"`" + `
	Status ThingStatus ` + "`json:\"status\"`" + `
}

type ThingSpec struct {
	NodeName string            ` + "`json:\"nodeName\"`" + `
	Ports    []Port            ` + "`json:\"ports\"`" + `
	Weights  map[string]Port   ` + "`json:\"weights\"`" + `
	Config   runtime.RawExtension ` + "`json:\"config\"`" + `
	Any      interface{}       ` + "`json:\"any\"`" + `
	Grid     [][]Port          ` + "`json:\"grid\"`" + `
	Ref      *Ref              ` + "`json:\"ref\"`" + `
	Common   ` + "`json:\",inline\"`" + `
	local    ` + "`json:\",inline\"`" + `
	other    ` + "`json:\",inline\"`" + `
	Priv     priv              ` + "`json:\"priv\"`" + `
}

// local and other are unexported structs whose fields JSON inlines:
// their fields are kept flat, where Go promotes them by name.
type local struct {
	Zone string ` + "`json:\"zone\"`" + `
	Rack Rack   ` + "`json:\"rack\"`" + `
	Dup  string ` + "`json:\"dupA\"`" + `
}

type other struct {
	Dup string ` + "`json:\"dupB\"`" + ` // Go promotes no Dup: local has one too
}

type Rack struct {
	Row  string ` + "`json:\"row\"`" + `
	Slot int32  ` + "`json:\"slot\"`" + `
}

type priv struct {
	X string ` + "`json:\"x\"`" + `
}

type Common struct {
	Shared string ` + "`json:\"shared\"`" + `
}

type Port struct {
	Name string ` + "`json:\"name\"`" + `
	Port int32  ` + "`json:\"port\"`" + `
}

type Ref struct {
	Name string ` + "`json:\"name\"`" + `
}

type ThingStatus struct {
	Phase string ` + "`json:\"phase\"`" + `
	Ready bool   ` + "`json:\"ready\"`" + `
}

type ThingList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Thing   ` + "`json:\"items\"`" + `
}

// A kind whose structs would be generated under one name.
type Clash struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	A ClashSpec ` + "`json:\"a\"`" + `
	B Spec      ` + "`json:\"b\"`" + `
}
type ClashSpec struct {
	X string ` + "`json:\"x\"`" + `
}
type Spec struct {
	X string ` + "`json:\"x\"`" + `
}
type ClashList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Clash   ` + "`json:\"items\"`" + `
}
`

// keepAlias is an alias of Thing in another package with the markers given.
func keepAlias(name string, markers ...string) string {
	return "package views\n\nimport v1 \"example.com/m/api/v1\"\n\n// " + strings.Join(append([]string{"+syncer-gen"}, markers...), "\n// ") + "\ntype " + name + " = v1.Thing\n"
}

func TestKeepErrors(t *testing.T) {
	cases := []struct {
		keep string // the value of one keep marker after .spec.nodeName
		typ  ErrorType
		at   string // where in the value the error points
	}{
		{".spec.nodeNam", ErrorTypeNotFound, ".nodeNam"},
		{".spec.ports.name", ErrorTypeInvalid, ".ports"},
		{".spec.nodeName[*]", ErrorTypeInvalid, ".nodeName"},
		{".spec.weights[a].name", ErrorTypeNotSupported, ".weights"},
		{".spec.weights.name", ErrorTypeNotSupported, ".weights"},
		{".metadata.labels[app]", ErrorTypeNotSupported, ".labels"},
		{".spec.config.raw", ErrorTypeNotSupported, ".config"},
		{".spec.any.x", ErrorTypeNotSupported, ".any"},
		{".spec.grid[*].name", ErrorTypeNotSupported, ".grid"},
		{".metadata.ownerReferences[*].name", ErrorTypeNotSupported, ".name"},
		{".spec.nodeName.x", ErrorTypeNotFound, ".nodeName"},
		{".spec.nodeName", ErrorTypeDuplicate, ".spec.nodeName"}, // repeats the first marker
		{".spec", ErrorTypeDuplicate, ".spec"},                   // contains it
		{"spec", ErrorTypeInvalid, "spec"},
		{".spec.priv.x", ErrorTypeNotSupported, ".priv"}, // a struct of an unexported type
		{".spec.priv", ErrorTypeNotSupported, ".priv"},
		{".spec.dupA", ErrorTypeNotSupported, ".dupA"}, // Go promotes no Dup
	}
	files := map[string]string{"api/v1/types.go": keepAPI}
	var want []wantErr
	for i, c := range cases {
		// Each case is a projection of its own name, in a package of its own.
		f := fmt.Sprintf("views%02d/views.go", i)
		files[f] = keepAlias(fmt.Sprintf("Slim%02d", i), "+syncer-gen:keep=.spec.nodeName", "+syncer-gen:keep="+c.keep)
		want = append(want, wantErr{f, "+syncer-gen:keep=" + c.keep, c.at, c.typ})
	}
	// .status.phase is inside .status, kept before it.
	files["inside/views.go"] = keepAlias("Inside", "+syncer-gen:keep=.status", "+syncer-gen:keep=.status.phase")
	// An index on a field the projection does not keep.
	files["index/views.go"] = keepAlias("Index", "+syncer-gen:keep=.spec.nodeName", "+syncer-gen:index=.status.phase")
	// An index whose filter compares a field the projection does not keep.
	files["cond/views.go"] = keepAlias("Cond", "+syncer-gen:keep=.spec.ports[*].name", "+syncer-gen:index=.spec.ports[?(@.port==80)].name")
	// A projection named Thing beside the full syncer of Thing.
	files["named/views.go"] = keepAlias("Thing", "+syncer-gen:keep=.spec.nodeName")
	files["named/full.go"] = "package views\n\nimport v1 \"example.com/m/api/v1\"\n\n// +syncer-gen\ntype Full = v1.Thing\n"
	want = append(want,
		wantErr{"inside/views.go", "keep=.status.phase", ".status.phase", ErrorTypeDuplicate},
		wantErr{"index/views.go", "index=.status.phase", ".status.phase", ErrorTypeInvalid},
		wantErr{"cond/views.go", "index=.spec.ports[?(@.port==80)].name", ".spec", ErrorTypeInvalid},
		wantErr{"named/views.go", "+syncer-gen:keep=.spec.nodeName", "+", ErrorTypeDuplicate})
	buildErrors(t, files, want)
}

// A misspelt field gets the nearest JSON name at its level.
func TestKeepDidYouMean(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{"api/v1/types.go": keepAPI,
		"views/views.go": keepAlias("Slim", "+syncer-gen:keep=.spec.node_name", "+syncer-gen:keep=.staus.phase")})
	_, err := Build(Config{Patterns: []string{"./views"}, OutputPkg: "example.com/m/out", Dir: dir})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("got %v, want two errors", err)
	}
	for i, want := range []string{`did you mean "nodeName"?`, `did you mean "status"?`} {
		if !strings.Contains(list[i].Detail, want) {
			t.Errorf("error %d: %q does not say %s", i, list[i].Detail, want)
		}
	}
}

func TestKeepModel(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{
		"api/v1/types.go": keepAPI,
		"views/views.go": keepAlias("Slim",
			"+syncer-gen:keep=.spec.ports[*].name",
			"+syncer-gen:keep=.spec.shared",
			"+syncer-gen:keep=.spec.ref.name",
			"+syncer-gen:keep=.status.phase",
			"+syncer-gen:keep=.metadata.labels",
			"+syncer-gen:index(port)=.spec.ports.name",
			"+syncer-gen:index(shared)=.spec.shared"),
		"views/full.go": "package views\n\nimport v1 \"example.com/m/api/v1\"\n\n// +syncer-gen\ntype Full = v1.Thing\n",
		// keep markers on the type itself: a ThingView.
		"own/v1/types.go": strings.Replace(strings.Replace(keepAPI, "keep.example.com", "own.example.com", 1),
			"type Thing struct", "// +syncer-gen\n// +syncer-gen:keep=.status\ntype Thing struct", 1),
	})
	m, err := Build(Config{Patterns: []string{"./views", "./own/..."}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range m.Packages {
		for _, r := range p.Resources {
			line := fmt.Sprintf("%s %s/%s kind=%s", p.Dir, r.Name, r.Kind, r.Kind)
			if pr := r.Projection; pr != nil {
				line += fmt.Sprintf(" protobuf=%v", pr.Protobuf)
				for _, s := range pr.Structs {
					var fs []string
					for _, f := range s.Fields {
						fs = append(fs, f.GoName)
					}
					line += fmt.Sprintf(" %s(%s.%s gen=%v){%s}", s.Name, filepath.Base(s.Upstream.Pkg), s.Upstream.Name, s.Generated, strings.Join(fs, ","))
				}
			}
			for _, ix := range r.Indexes {
				line += " " + ix.Name + ":"
				for _, s := range ix.Steps {
					line += s.GoName + "/"
				}
			}
			got = append(got, line)
		}
	}
	want := []string{
		"keep/v1 Slim/Thing kind=Thing protobuf=false" +
			" Slim(v1.Thing gen=true){TypeMeta,ObjectMeta,Spec,Status}" +
			" SlimCommon(v1.Common gen=true){Shared}" +
			" SlimPort(v1.Port gen=true){Name}" +
			" SlimRef(v1.Ref gen=true){Name}" +
			" SlimSpec(v1.ThingSpec gen=true){Ports,Ref,SlimCommon}" +
			" SlimStatus(v1.ThingStatus gen=true){Phase}" +
			" SlimObjectMeta(v1.ObjectMeta gen=false){Name,Namespace,UID,ResourceVersion,DeletionTimestamp,Labels}" +
			" SlimTypeMeta(v1.TypeMeta gen=false){Kind,APIVersion}" +
			" port:Spec/Ports//Name/ shared:Spec/SlimCommon/Shared/",
		"keep/v1 Thing/Thing kind=Thing", // the full syncer beside the projection
		"own/v1 ThingView/Thing kind=Thing protobuf=false" +
			" ThingView(v1.Thing gen=true){TypeMeta,ObjectMeta,Status}" +
			" ThingViewObjectMeta(v1.ObjectMeta gen=false){Name,Namespace,UID,ResourceVersion,DeletionTimestamp}" +
			" ThingViewTypeMeta(v1.TypeMeta gen=false){Kind,APIVersion}",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A projection whose every keep path is under .metadata is metadata-only
// (its syncer asks for PartialObjectMetadata); one path elsewhere makes it
// not.
func TestKeepMetadataOnly(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{
		"api/v1/types.go": keepAPI,
		"views/views.go": keepAlias("Owners", "+syncer-gen:keep=.metadata.labels", "+syncer-gen:keep=.metadata.ownerReferences",
			"+syncer-gen:index(owner)=.metadata.ownerReferences[*].uid"),
		"whole/views.go": keepAlias("Meta", "+syncer-gen:keep=.metadata"),
		"mixed/views.go": keepAlias("Mixed", "+syncer-gen:keep=.metadata.labels", "+syncer-gen:keep=.status.ready"),
	})
	m, err := Build(Config{Patterns: []string{"./views", "./whole", "./mixed"}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, p := range m.Packages {
		for _, r := range p.Resources {
			got[r.Name] = r.Projection.MetadataOnly
		}
	}
	if want := map[string]bool{"Owners": true, "Meta": true, "Mixed": false}; !maps.Equal(got, want) {
		t.Errorf("metadata-only: got %v, want %v", got, want)
	}
}

// A filter in a keep path is refused at the filter, with the path that
// keeps every element instead: a projection never drops what a marker says.
func TestKeepFilterRefused(t *testing.T) {
	for _, tt := range []struct{ keep, instead string }{
		{".spec.ports[?(@.name=='http')]", ".spec.ports[*]"},
		{".spec.ports[?(@.name=='http')].name", ".spec.ports[*].name"},
	} {
		files := map[string]string{"api/v1/types.go": keepAPI, "views/views.go": keepAlias("Slim", "+syncer-gen:keep="+tt.keep)}
		buildErrors(t, files, []wantErr{{"views/views.go", "keep=.spec.ports[?", "[?", ErrorTypeNotSupported}})
		_, err := Build(Config{Patterns: []string{"./views"}, OutputPkg: "example.com/m/out", Dir: testmodule.Write(t, files)})
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Detail, "write "+tt.instead+" ") {
			t.Errorf("%s: got %v; want one error saying to write %s instead", tt.keep, err, tt.instead)
		}
	}
}

// The fields of an unexported embedded struct, which generated code cannot
// name, are kept flat in the generated struct, selected by Go's promotion;
// the projection then reads JSON only (their protobuf numbers are the
// embedded message's). An index reaches them so too.
func TestKeepUnexportedEmbedded(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{"api/v1/types.go": keepAPI,
		"views/views.go": keepAlias("Slim", "+syncer-gen:keep=.spec.zone", "+syncer-gen:keep=.spec.rack.row", "+syncer-gen:keep=.spec.nodeName",
			"+syncer-gen:index=.spec.zone", "+syncer-gen:index=.spec.rack.row")})
	m, err := Build(Config{Patterns: []string{"./views"}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	r := m.Packages[0].Resources[0]
	var got []string
	for _, s := range r.Projection.Structs {
		if !s.Generated {
			continue
		}
		var fs, js []string
		for _, f := range s.Fields {
			fs = append(fs, f.GoName)
		}
		for _, mb := range s.JSON {
			var p []string
			for _, f := range mb.Path {
				p = append(p, f.GoName)
			}
			js = append(js, mb.Name+"="+strings.Join(p, "."))
		}
		got = append(got, fmt.Sprintf("%s{%s}[%s]", s.Name, strings.Join(fs, ","), strings.Join(js, " ")))
	}
	for _, ix := range r.Indexes {
		var p []string
		for _, s := range ix.Steps {
			p = append(p, s.GoName)
		}
		got = append(got, ix.Name+":"+strings.Join(p, "/"))
	}
	want := []string{
		"Slim{TypeMeta,ObjectMeta,Spec}[kind=TypeMeta.Kind apiVersion=TypeMeta.APIVersion metadata=ObjectMeta spec=Spec]",
		"SlimRack{Row}[row=Row]",
		"SlimSpec{NodeName,Zone,Rack}[nodeName=NodeName zone=Zone rack=Rack]",
		"row:Spec/Rack/Row", "zone:Spec/Zone",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if r.Projection.Protobuf {
		t.Errorf("a projection with fields kept flat reads protobuf")
	}
}

// clashAPI has a kind whose structs would be generated under one name:
// ClashSpec and Spec (the kind cut from the first), Store (a name the
// syncer's code declares), and Ref of two packages.
const clashAPI = `// +groupName=clash.example.com
package v1

import (
	ext "example.com/m/api/ext/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type Clash struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	A ClashSpec ` + "`json:\"a\"`" + `
	B Spec      ` + "`json:\"b\"`" + `
	C Store     ` + "`json:\"c\"`" + `
	D ext.Ref   ` + "`json:\"d\"`" + `
	E Ref       ` + "`json:\"e\"`" + `
}
type ClashSpec struct{ X string ` + "`json:\"x\"`" + ` }
type Spec struct{ X string ` + "`json:\"x\"`" + ` }
type Store struct{ X string ` + "`json:\"x\"`" + ` }
type Ref struct{ X string ` + "`json:\"x\"`" + ` }
type ClashList struct {
	metav1.TypeMeta ` + "`json:\",inline\"`" + `
	metav1.ListMeta ` + "`json:\"metadata,omitempty\"`" + `
	Items []Clash   ` + "`json:\"items\"`" + `
}
`

// clashFiles are the API packages of clashAPI.
var clashFiles = map[string]string{
	"api/clash/v1/types.go": clashAPI,
	"api/ext/v1/types.go":   "package v1\n\ntype Ref struct{ X string `json:\"x\"` }\n",
}

// Two upstream structs that would get one generated name (Pod's
// PodSecurityContext and SecurityContext; PodResourceClaim and
// ResourceClaim; ClashSpec and Spec of a kind Clash; one type name in two
// packages; a struct named like the projection's store) get two, whatever
// the order of the paths: the struct whose own name it is keeps the short
// name, the others take their upstream name whole, then qualified by
// their package.
func TestKeepStructNames(t *testing.T) {
	pod := []string{
		"+syncer-gen:keep=.spec.securityContext.runAsUser",
		"+syncer-gen:keep=.spec.containers[*].securityContext.privileged",
		"+syncer-gen:keep=.spec.resourceClaims[*].name",
		"+syncer-gen:keep=.spec.containers[*].resources.claims[*].name",
	}
	clash := []string{"+syncer-gen:keep=.a.x", "+syncer-gen:keep=.b.x", "+syncer-gen:keep=.c.x", "+syncer-gen:keep=.d.x", "+syncer-gen:keep=.e.x"}
	alias := func(name, typ string, markers []string) string {
		return "// +syncer-gen\n// " + strings.Join(markers, "\n// ") + "\ntype " + name + " = " + typ + "\n\n"
	}
	backwards := func(ms []string) []string {
		out := slices.Clone(ms)
		slices.Reverse(out)
		return out
	}
	files := maps.Clone(clashFiles)
	files["views/views.go"] = "package views\n\nimport (\n\tv1 \"example.com/m/api/clash/v1\"\n\tcorev1 \"k8s.io/api/core/v1\"\n)\n\n" +
		alias("NodePod", "corev1.Pod", pod) + alias("Backwards", "corev1.Pod", backwards(pod)) +
		alias("Slim", "v1.Clash", clash) + alias("Back", "v1.Clash", backwards(clash))
	m, err := Build(Config{Patterns: []string{"./views"}, OutputPkg: "example.com/m/out", Dir: testmodule.Write(t, files)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, p := range m.Packages {
		for _, r := range p.Resources {
			for _, s := range r.Projection.Structs[1:] {
				if s.Generated {
					got[r.Name] = append(got[r.Name], strings.TrimPrefix(s.Name, r.Name)+"="+filepath.Base(filepath.Dir(s.Upstream.Pkg))+"."+s.Upstream.Name)
				}
			}
		}
	}
	want := map[string][]string{
		"NodePod": {"Container=core.Container", "PodResourceClaim=core.PodResourceClaim", "PodSecurityContext=core.PodSecurityContext",
			"ResourceClaim=core.ResourceClaim", "ResourceRequirements=core.ResourceRequirements", "SecurityContext=core.SecurityContext", "Spec=core.PodSpec"},
		"Slim": {"ClashSpec=clash.ClashSpec", "Ref=clash.Ref", "Spec=clash.Spec", "V1Ref=ext.Ref", "V1Store=clash.Store"},
	}
	want["Backwards"], want["Back"] = want["NodePod"], want["Slim"]
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
