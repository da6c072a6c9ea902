package generators

import (
	"errors"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// got is what a test checks of a resource: its folder, name and scope.
type got struct {
	dir, resource string
	namespaced    bool
}

func resourcesOf(m *Model) map[string]got {
	out := map[string]got{}
	for _, p := range m.Packages {
		for _, r := range p.Resources {
			out[r.TypePkg+"."+r.Kind] = got{p.Dir, r.Resource, r.Namespaced}
		}
	}
	return out
}

// The markers of code-generator and kubebuilder that state a resource's
// name, scope and group are honoured, and types defined over another
// package's struct (gateway-api's "type Gateway v1.Gateway") generate.
func TestBuildHonoursUpstreamMarkers(t *testing.T) {
	const gv = "package v1\n\nimport \"k8s.io/apimachinery/pkg/runtime/schema\"\n\n" +
		"var GroupVersion = schema.GroupVersion{Group: Group, Version: \"v1\"}\n\nconst Group = \"kb.example.com\"\n"
	dir := testmodule.Write(t, map[string]string{
		// k8s.io/metrics: +resourceName
		"metrics/v1beta1/doc.go": "// +groupName=metrics.k8s.io\n// +syncer-gen\npackage v1beta1\n",
		"metrics/v1beta1/types.go": apiFile("v1beta1",
			apiType("// +genclient\n// +resourceName=pods\n// +genclient:readonly", "PodMetrics", false),
			apiType("// +genclient\n// +genclient:nonNamespaced\n// +resourceName=nodes\n// +genclient:readonly", "NodeMetrics", false)),
		// a kubebuilder project: no +genclient, no +groupName
		"kb/v1/groupversion_info.go": gv,
		"kb/v1/types.go": apiFile("v1",
			apiType("// +kubebuilder:object:root=true\n// +kubebuilder:resource:path=extensionconfigs,shortName={ec,ecs},scope=Cluster", "ExtensionConfig", false),
			apiType("// +kubebuilder:object:root=true\n// +kubebuilder:subresource:status", "Machine", false),
			apiType("// +kubebuilder:object:root=true", "Config", true)),
		// gateway-api: a version that defines its types over another's
		"gw/v1/doc.go":      "// +groupName=gateway.networking.k8s.io\npackage v1\n",
		"gw/v1/types.go":    apiFile("v1", apiType("// +genclient", "Gateway", false), apiType("// +genclient\n// +genclient:nonNamespaced", "GatewayClass", false)),
		"gw/v1beta1/doc.go": "// +groupName=gateway.networking.k8s.io\n// +syncer-gen\npackage v1beta1\n",
		"gw/v1beta1/types.go": "package v1beta1\n\nimport (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\tv1 \"example.com/m/gw/v1\"\n)\n\n" +
			"// +genclient\ntype Gateway v1.Gateway\n\ntype GatewayList struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems []Gateway `json:\"items\"`\n}\n\n" +
			"// +genclient\n// +genclient:nonNamespaced\n// +kubebuilder:resource:scope=Cluster\ntype GatewayClass v1.GatewayClass\n\ntype GatewayClassList struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ListMeta `json:\"metadata,omitempty\"`\n\tItems []GatewayClass `json:\"items\"`\n}\n",
		"gwx/v1alpha1/doc.go":   "// +groupName=gateway.networking.x-k8s.io\n// +groupGoName=Experimental\n// +syncer-gen\npackage v1alpha1\n",
		"gwx/v1alpha1/types.go": apiFile("v1alpha1", apiType("// +genclient", "XMesh", false)),
		// an alias to a defined type, and +syncer-gen's own scope
		"mine/v1/doc.go":    "// +groupName=mine.example.com\npackage v1\n",
		"mine/v1/types.go":  "package v1\n\nimport gwv1beta1 \"example.com/m/gw/v1beta1\"\n\n// +syncer-gen\n// +syncer-gen:index(class)=.spec.nodeName\ntype Gateway = gwv1beta1.Gateway\n",
		"mine/v1/scoped.go": apiFile("v1", apiType("// +syncer-gen\n// +syncer-gen:scope=Cluster", "Quota", false)),
	})
	m, err := Build(Config{Patterns: []string{"./metrics/...", "./gw/...", "./gwx/...", "./mine/..."}, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	kb, err := Build(Config{Patterns: []string{"./kb/..."}, AllGenclient: true, OutputPkg: "example.com/m/out", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	have := resourcesOf(m)
	for k, v := range resourcesOf(kb) {
		have[k] = v
	}
	want := map[string]got{
		"example.com/m/metrics/v1beta1.PodMetrics":  {"metrics/v1beta1", "pods", true},
		"example.com/m/metrics/v1beta1.NodeMetrics": {"metrics/v1beta1", "nodes", false},
		"example.com/m/kb/v1.ExtensionConfig":       {"kb/v1", "extensionconfigs", false},
		"example.com/m/kb/v1.Machine":               {"kb/v1", "machines", true},
		"example.com/m/gw/v1beta1.Gateway":          {"gateway/v1beta1", "gateways", true},
		"example.com/m/gw/v1beta1.GatewayClass":     {"gateway/v1beta1", "gatewayclasses", false},
		"example.com/m/gwx/v1alpha1.XMesh":          {"experimental/v1alpha1", "xmeshes", true},
		"example.com/m/mine/v1.Quota":               {"mine/v1", "quotas", false},
	}
	for k, w := range want {
		if g, ok := have[k]; !ok {
			t.Errorf("%s: not generated", k)
		} else if g != w {
			t.Errorf("%s: got %+v, want %+v", k, g, w)
		}
		delete(have, k)
	}
	for k := range have {
		t.Errorf("%s generated, not wanted", k)
	}
	for _, p := range m.Packages {
		if p.Dir == "gateway/v1beta1" && strings.Join(p.Sources, ",") != "example.com/m/gw/v1beta1,example.com/m/mine/v1" {
			t.Errorf("gateway/v1beta1 sources: %v", p.Sources)
		}
	}
}

// Errors say what selected the type, and suggest the type meant.
func TestBuildSelectionErrors(t *testing.T) {
	dir := testmodule.Write(t, map[string]string{
		"v1/doc.go":       groupDoc,
		"v1/types.go":     apiFile("v1", apiType("// +genclient", "Thing", true), apiType("// +genclient", "Widget", false)),
		"empty/v1/doc.go": groupDoc,
	})
	for _, tt := range []struct {
		cfg        Config
		typ        ErrorType
		marker     string
		suggestion string
	}{
		{Config{Patterns: []string{"./v1"}, AllGenclient: true}, ErrorTypeRequired, byAllGenclient, ""},
		{Config{Types: []string{"example.com/m/v1.Widgte"}}, ErrorTypeNotFound, byTypeFlag, "example.com/m/v1.Widget?"},
		{Config{Patterns: []string{"./empty/v1"}, AllGenclient: true}, ErrorTypeRequired, byAllGenclient, ""},
	} {
		tt.cfg.Dir, tt.cfg.OutputPkg = dir, "example.com/m/out"
		_, err := Build(tt.cfg)
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || list[0].Type != tt.typ || list[0].Marker != tt.marker || !strings.Contains(list[0].Detail, tt.suggestion) {
			t.Errorf("%+v: got %v, want one %s error from %s suggesting %q", tt.cfg, err, tt.typ, tt.marker, tt.suggestion)
		}
	}
	// Selecting nothing without --all-genclient is a warning, not an error.
	m, err := Build(Config{Patterns: []string{"./empty/v1"}, Dir: dir, OutputPkg: "example.com/m/out"})
	if err != nil || len(m.Warnings) != 1 || m.Warnings[0].Type != ErrorTypeRequired {
		t.Errorf("a run that selects nothing: got %v, %+v; want one warning", err, m)
	}
}

// kubebuilder's resource marker is split on the commas outside braces and
// quotes, and each value is placed where it is written.
func TestKubebuilderResourceMarker(t *testing.T) {
	text := `+kubebuilder:resource:shortName={cl,cls},categories="a,b",path=clusters,scope=Cluster`
	up := readUpstream([]commentLine{line(text)})
	if up.path == nil || up.path.value != "clusters" || text[up.path.pos.Column-4:][:len("clusters")] != "clusters" {
		t.Errorf("path: %+v", up.path)
	}
	if up.scope == nil || up.scope.value != scopeCluster || text[up.scope.pos.Column-4:] != scopeCluster {
		t.Errorf("scope: %+v", up.scope)
	}
}

func TestGroupDir(t *testing.T) {
	for _, tt := range []struct{ group, goName, want string }{
		{"", "", "core"},
		{"apps", "", "apps"},
		{"gateway.networking.k8s.io", "", "gateway"},
		{"gateway.networking.x-k8s.io", "Experimental", "experimental"},
		{"cert-manager.io", "", "certmanager"},
		{"internal.apiserver.k8s.io", "", "internalapiserver"},
	} {
		if got := groupDir(tt.group, tt.goName); got != tt.want {
			t.Errorf("groupDir(%q, %q) = %q, want %q", tt.group, tt.goName, got, tt.want)
		}
	}
}
