package golden_test

import (
	"slices"
	"testing"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// ref is an owner reference to the Gadget name, of kind and apiVersion,
// controller or not (nil: not said).
func ref(apiVersion, kind, name string, controller *bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("uid-" + name), Controller: controller}
}

const gadgetAPI = "things.golden.example.com/v1"

// The generated functions of filtered paths keep the elements that pass
// every condition: a controller owner of the kind and apiVersion named
// (a nil controller pointer fails ==), and a port whose number is 80 and
// whose name is not debug.
func TestGeneratedFilteredIndexes(t *testing.T) {
	yes, no := true, false
	s, d := thingsv1syncers.NewGadgetDriver()
	d.Add(
		gadget("child", "1", func(g *thingsv1.Gadget) {
			g.OwnerReferences = []metav1.OwnerReference{
				ref(gadgetAPI, "Gadget", "not-controller", &no),
				ref(gadgetAPI, "Gadget", "unsaid", nil),
				ref(gadgetAPI, "Gadget", "parent", &yes),
			}
			g.Spec.Ports = []thingsv1.Port{{Name: "http", Port: 80}, {Name: "debug", Port: 80}, {Name: "alt", Port: 8080}}
		}),
		gadget("other-kind", "1", func(g *thingsv1.Gadget) {
			g.OwnerReferences = []metav1.OwnerReference{ref("v1", "ConfigMap", "parent", &yes)}
		}),
		gadget("other-version", "1", func(g *thingsv1.Gadget) {
			g.OwnerReferences = []metav1.OwnerReference{ref("things.golden.example.com/v2", "Gadget", "parent", &yes)}
		}),
	)
	st := s.Store()
	for _, tt := range []struct {
		name string
		got  []*thingsv1.Gadget
		want []string
	}{
		{"ByController(parent)", st.ByController("parent"), []string{"child"}},
		{"ByController(not-controller)", st.ByController("not-controller"), []string{}},
		{"ByController(unsaid)", st.ByController("unsaid"), []string{}},
		{"ByWebPort(http)", st.ByWebPort("http"), []string{"child"}},
		{"ByWebPort(debug)", st.ByWebPort("debug"), []string{}},
		{"ByWebPort(alt)", st.ByWebPort("alt"), []string{}},
	} {
		if got := names(tt.got); !slices.Equal(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The owner index on the real server: gadgets owned by another gadget are
// found by their controller owner's name, and follow a change of owner.
func TestOwnerIndexOnRealServer(t *testing.T) {
	srv := testbed.Shared(t)
	srv.InstallCRD(t, manifest(t, "gadgets.yaml"))
	ctx := t.Context()
	ns := srv.Namespace(t)
	gadgets := dynamic.NewForConfigOrDie(srv.Config()).
		Resource(schema.GroupVersionResource{Group: "things.golden.example.com", Version: "v1", Resource: "gadgets"}).Namespace(ns)
	owned := func(name string, refs ...any) map[string]any {
		return map[string]any{"apiVersion": gadgetAPI, "kind": "Gadget",
			"metadata": map[string]any{"name": name, "ownerReferences": refs}, "spec": map[string]any{"owner": "x"}}
	}
	owner := func(kind, name string, controller bool) map[string]any {
		return map[string]any{"apiVersion": gadgetAPI, "kind": kind, "name": name, "uid": "uid-" + name, "controller": controller}
	}
	create(t, gadgets,
		owned("a1", owner("Gadget", "a", true)),
		owned("a2", owner("Gadget", "b", false), owner("Gadget", "a", true)),
		owned("b1", owner("Gadget", "b", true)),
		owned("loose", owner("Gadget", "a", false)),
		owned("foreign", owner("Widget", "a", true)),
	)
	gs, err := thingsv1syncers.NewGadgetSyncer(srv.Config(), runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	run(t, gs)
	byOwner := func(name string) []string { return names(gs.Store().ByController(name)) }
	if got := byOwner("a"); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("ByController(a) = %v, want [a1 a2]", got)
	}
	if got := byOwner("b"); !slices.Equal(got, []string{"b1"}) {
		t.Errorf("ByController(b) = %v, want [b1]", got)
	}

	// b1 changes hands: its controller becomes a.
	b1, err := gadgets.Get(ctx, "b1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b1.SetOwnerReferences([]metav1.OwnerReference{ref(gadgetAPI, "Gadget", "a", ptrTo(true))})
	if _, err := gadgets.Update(ctx, b1, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, "ByController(a) after b1 changed hands", func() bool {
		return slices.Equal(byOwner("a"), []string{"a1", "a2", "b1"}) && len(byOwner("b")) == 0
	})
}

func ptrTo[T any](v T) *T { return &v }
