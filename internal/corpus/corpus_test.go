package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testmodule"
)

// manifests names folders of upstream files (CRD YAML, typed clients) in
// a module at a version; an empty version is the one the corpus module
// requires.
type manifests struct {
	module, version string
	dirs            []string
}

// api is one module of the corpus: its API packages, generated in one run
// with --all-genclient, and where upstream says what their resources are.
type api struct {
	module, version string
	packages        []string // patterns, relative to the module
	crds            []manifests
	clients         []manifests // client-gen's typed clients
}

// The corpus, pinned. Versions whose go.mod needs a newer Go or newer
// Kubernetes modules than this repository are left for later releases.
var corpus = []api{
	{module: "sigs.k8s.io/gateway-api", version: "v1.6.3", packages: []string{"apis/...", "apisx/..."},
		crds:    []manifests{{"sigs.k8s.io/gateway-api", "", []string{"config/crd/experimental"}}},
		clients: []manifests{{"sigs.k8s.io/gateway-api", "", []string{"pkg/client/clientset/versioned/typed"}}}},
	{module: "k8s.io/metrics", version: "v0.37.2", packages: []string{"pkg/apis/metrics/v1beta1", "pkg/apis/metrics/v1alpha1"},
		clients: []manifests{{"k8s.io/metrics", "", []string{"pkg/client/clientset/versioned/typed"}}}},
	{module: "k8s.io/apiextensions-apiserver", version: "v0.37.2", packages: []string{"pkg/apis/apiextensions/v1", "pkg/apis/apiextensions/v1beta1"},
		clients: []manifests{{"k8s.io/apiextensions-apiserver", "", []string{"pkg/client/clientset/clientset/typed"}}}},
	{module: "k8s.io/kube-aggregator", version: "v0.37.2", packages: []string{"pkg/apis/apiregistration/v1", "pkg/apis/apiregistration/v1beta1"},
		clients: []manifests{{"k8s.io/kube-aggregator", "", []string{"pkg/client/clientset_generated/clientset/typed"}}}},
	{module: "github.com/cert-manager/cert-manager", version: "v1.21.2", packages: []string{"pkg/apis/certmanager/v1", "pkg/apis/acme/v1"},
		crds:    []manifests{{"github.com/cert-manager/cert-manager", "", []string{"deploy/crds"}}},
		clients: []manifests{{"github.com/cert-manager/cert-manager", "", []string{"pkg/client/clientset/versioned/typed"}}}},
	// The proxy serves the root module (with the CRDs) only at v0.85.0, so the APIs are taken at the same
	// version; the "full" CRDs also list v1beta1 AlertmanagerConfig, served through conversion.
	{module: "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring", version: "v0.85.0", packages: []string{"..."},
		crds: []manifests{{"github.com/prometheus-operator/prometheus-operator", "v0.85.0", []string{"example/prometheus-operator-crd-full"}}}},
	{module: "istio.io/client-go", version: "v1.31.1", packages: []string{"pkg/apis/..."},
		// its typed clients are of the older client-gen form, without gentype: the CRDs say it all
		crds: []manifests{{"istio.io/api", "", []string{"kubernetes"}}}},
	// kubebuilder: no +genclient, the CRDs are made by controller-gen.
	{module: "sigs.k8s.io/cluster-api/api", version: "v1.14.2", packages: []string{"..."},
		crds: []manifests{{"sigs.k8s.io/cluster-api", "v1.14.2", []string{"core/config/crd/bases", "bootstrap/kubeadm/config/crd/bases", "controlplane/kubeadm/config/crd/bases"}}}},
}

// goCmd runs the go command in dir and returns its standard output.
func goCmd(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = new(strings.Builder)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, cmd.Stderr)
	}
	return out
}

// moduleDir returns the folder of module at version (the required one if "") in the module cache.
func moduleDir(t *testing.T, dir, module, version string) string {
	t.Helper()
	var m struct{ Dir string }
	if version == "" {
		version = strings.TrimSpace(string(goCmd(t, dir, "list", "-m", "-f", "{{.Version}}", module)))
	}
	if err := json.Unmarshal(goCmd(t, dir, "mod", "download", "-json", module+"@"+version), &m); err != nil {
		t.Fatal(err)
	}
	if m.Dir == "" {
		t.Fatalf("no folder for %s@%s", module, version)
	}
	return m.Dir
}

func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("downloads (once) and builds real API modules; skipped with -short")
	}
	started := time.Now()
	dir := testmodule.Write(t, map[string]string{})
	get := []string{"get"}
	for _, a := range corpus {
		for _, p := range a.packages {
			get = append(get, a.module+"/"+p+"@"+a.version) // packages, so that go.sum covers what they import
		}
	}
	goCmd(t, dir, get...)
	bin := filepath.Join(t.TempDir(), "syncer-gen")
	goCmd(t, dir, "build", "-o", bin, "github.com/syncer-gen/syncer-gen/cmd/syncer-gen")
	t.Logf("module set up and syncer-gen built in %s", time.Since(started).Round(time.Millisecond))

	crds := map[gvk]binding{}
	clients := map[goType]binding{}
	for _, a := range corpus {
		var patterns []string
		for _, p := range a.packages {
			patterns = append(patterns, a.module+"/"+p)
		}
		// Every module's run writes into the same folder: the runs share it.
		args := append([]string{"--output-dir", "syncers", "--all-genclient"}, patterns...)
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		runStart := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("syncer-gen %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("%s@%s generated in %s", a.module, a.version, time.Since(runStart).Round(time.Millisecond))
		for _, m := range a.crds {
			var dirs []string
			for _, d := range m.dirs {
				dirs = append(dirs, filepath.Join(moduleDir(t, dir, m.module, m.version), d))
			}
			got, err := readCRDs(dirs)
			if err != nil || len(got) == 0 {
				t.Fatalf("CRDs of %s: %d, %v", m.module, len(got), err)
			}
			for k, v := range got {
				crds[k] = v
			}
		}
		for _, m := range a.clients {
			for _, d := range m.dirs {
				got, err := readTypedClients(filepath.Join(moduleDir(t, dir, m.module, m.version), d))
				if err != nil || len(got) == 0 {
					t.Fatalf("typed clients of %s: %d, %v", m.module, len(got), err)
				}
				for k, v := range got {
					clients[k] = v
				}
			}
		}
	}
	buildStart := time.Now()
	goCmd(t, dir, "build", "./syncers/...")
	goCmd(t, dir, "vet", "./syncers/...")
	t.Logf("built and vetted in %s", time.Since(buildStart).Round(time.Millisecond))

	syncers, err := readSyncers(filepath.Join(dir, "syncers"))
	if err != nil {
		t.Fatal(err)
	}
	checkAgainstUpstream(t, syncers, crds, clients)
	projections(t, dir, bin)
	t.Logf("%d syncers checked against %d CRD versions and %d typed clients in %s", len(syncers), len(crds), len(clients), time.Since(started).Round(time.Millisecond))
}

// checkAgainstUpstream checks each syncer's resource and scope against
// every upstream file that states them, and that every upstream resource
// of a generated group and version, or of a generated Go package, has its syncer.
func checkAgainstUpstream(t *testing.T, syncers []syncer, crds map[gvk]binding, clients map[goType]binding) {
	t.Helper()
	gvs, pkgs := map[string]bool{}, map[string]bool{}
	have := map[gvk]bool{}
	haveType := map[goType]bool{}
	for _, s := range syncers {
		gvs[s.group+"/"+s.version], pkgs[s.pkg] = true, true
		have[s.gvk], haveType[s.goType] = true, true
		checked := false
		for _, up := range []struct {
			b  binding
			ok bool
		}{{crds[s.gvk], crds[s.gvk].from != ""}, {clients[s.goType], clients[s.goType].from != ""}} {
			if !up.ok {
				continue
			}
			checked = true
			if up.b.resource != s.resource || up.b.namespaced != s.namespaced {
				t.Errorf("%s.%s (%s/%s): generated %s namespaced=%v, upstream %s says %s namespaced=%v",
					s.pkg, s.name, s.group, s.version, s.resource, s.namespaced, up.b.from, up.b.resource, up.b.namespaced)
			}
		}
		if !checked {
			t.Errorf("%s.%s (%s/%s %s): no upstream CRD or typed client states its resource", s.pkg, s.name, s.group, s.version, s.kind)
		}
	}
	var missing []string
	for k, b := range crds {
		if gvs[k.group+"/"+k.version] && !have[k] {
			missing = append(missing, fmt.Sprintf("%s/%s %s (%s)", k.group, k.version, k.kind, b.from))
		}
	}
	for k, b := range clients {
		if pkgs[k.pkg] && !haveType[k] {
			missing = append(missing, fmt.Sprintf("%s.%s (%s)", k.pkg, k.name, b.from))
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("upstream has %s, syncer-gen generated no syncer for it", m)
	}
}

// views are projections (+syncer-gen:keep) of corpus types: a custom
// resource (cert-manager's Certificate, JSON), one whose kept paths run
// through structs that JSON inlines (gateway-api's HTTPRoute: spec's
// CommonRouteSpec, a backend reference's BackendObjectReference), and a
// built-in type (Pod, protobuf).
const views = `package views

import (
	certmanagerv1 "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	corev1 "k8s.io/api/core/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// +syncer-gen
// +syncer-gen:keep=.spec.secretName
// +syncer-gen:keep=.spec.dnsNames
// +syncer-gen:keep=.spec.issuerRef.name
// +syncer-gen:keep=.status.conditions
// +syncer-gen:keep=.status.notAfter
// +syncer-gen:index(secret)=.spec.secretName
type CertificateView = certmanagerv1.Certificate

// +syncer-gen
// +syncer-gen:keep=.spec.parentRefs
// +syncer-gen:keep=.spec.hostnames
// +syncer-gen:keep=.spec.rules[*].backendRefs[*].name
// +syncer-gen:keep=.spec.rules[*].backendRefs[*].port
// +syncer-gen:keep=.status.parents
// +syncer-gen:index(backend)=.spec.rules.backendRefs.name
type RouteView = gatewayv1.HTTPRoute

// +syncer-gen
// +syncer-gen:keep=.metadata.labels
// +syncer-gen:keep=.metadata.ownerReferences
// +syncer-gen:keep=.spec.nodeName
// +syncer-gen:keep=.spec.containers[*].name
// +syncer-gen:keep=.spec.containers[*].image
// +syncer-gen:keep=.status.phase
// +syncer-gen:keep=.status.podIPs
type NodePod = corev1.Pod
`

// projections generates the views into a folder of their own, builds and
// vets them, and runs their generated tests: each projection's decoders
// against the full ones, on random objects of the real types.
func projections(t *testing.T, dir, bin string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "views"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "views", "views.go"), []byte(views), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--output-dir", "viewsyncers", "./views")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("syncer-gen ./views: %v\n%s", err, out)
	}
	for _, f := range []string{"certmanager/v1/certificateview_protobuf.go", "gateway/v1/routeview_protobuf.go", "core/v1/nodepod_protobuf.go"} {
		_, err := os.Stat(filepath.Join(dir, "viewsyncers", f))
		if want := strings.HasPrefix(f, "core/"); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v (protobuf only for the built-in type)", f, err == nil, want)
		}
	}
	goCmd(t, dir, "vet", "./viewsyncers/...")
	out := goCmd(t, dir, "test", "-count=1", "./viewsyncers/...")
	t.Logf("the projections' tests:\n%s", out)
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
