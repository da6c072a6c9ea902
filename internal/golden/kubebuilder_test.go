package golden_test

import (
	"fmt"
	"testing"

	fleetv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/fleet/v1"
	fleetv1beta1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/fleet/v1beta1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The syncers of the kubebuilder-style fixture (no +genclient; group,
// resource names and scopes only in kubebuilder markers; a v1beta1 kind
// defined over the v1 one) sync from a real server: a wrong resource name
// or scope would be a 404 there.
func TestKubebuilderSyncersOnRealServer(t *testing.T) {
	srv := testbed.Shared(t)
	srv.InstallCRD(t, manifest(t, "cacti.yaml"))
	srv.InstallCRD(t, manifest(t, "crates.yaml"))
	ns := srv.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(srv.Config())
	cacti := dyn.Resource(schema.GroupVersionResource{Group: "fleet.golden.example.com", Version: "v1", Resource: "cacti"})
	crates := dyn.Resource(schema.GroupVersionResource{Group: "fleet.golden.example.com", Version: "v1", Resource: "crates"}).Namespace(ns)
	for i := range 4 {
		create(t, cacti, map[string]any{
			"apiVersion": "fleet.golden.example.com/v1", "kind": "Cactus",
			"metadata": map[string]any{"name": fmt.Sprintf("c%d", i)}, "spec": map[string]any{"water": "little"},
		})
	}
	for i := range 6 {
		create(t, crates, map[string]any{
			"apiVersion": "fleet.golden.example.com/v1", "kind": "Crate",
			"metadata": map[string]any{"name": fmt.Sprintf("k%d", i)}, "spec": map[string]any{"owner": []string{"ann", "bob", "bob"}[i%3]},
		})
	}

	cs, err := fleetv1syncers.NewCactusSyncer(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	v1crates, err := fleetv1syncers.NewCrateSyncer(srv.Config(), runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	v1beta1crates, err := fleetv1beta1syncers.NewCrateSyncer(srv.Config(), runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	run(t, cs)
	run(t, v1crates)
	run(t, v1beta1crates)

	if n := cs.Store().Len(); n != 4 {
		t.Errorf("cacti: %d, want 4", n)
	}
	if c, _ := cs.Store().Get("", "c0"); c == nil || c.Spec.Water != "little" {
		t.Errorf("cactus c0 = %v, want it with its spec", c)
	}
	if n := len(v1crates.Store().ByOwner("bob")); n != 4 {
		t.Errorf("v1 crates ByOwner(bob): %d, want 4", n)
	}
	if n := v1beta1crates.Store().Len(); n != 6 {
		t.Errorf("v1beta1 crates: %d, want 6", n)
	}
	if c, _ := v1beta1crates.Store().Get(ns, "k1"); c == nil || c.Spec.Owner != "bob" {
		t.Errorf("v1beta1 crate k1 = %+v, want bob's", c)
	}
}
