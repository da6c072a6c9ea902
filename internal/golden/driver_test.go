package golden_test

import (
	"slices"
	"testing"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func names[T interface{ GetName() string }](objs []T) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetName()
	}
	slices.Sort(out)
	return out
}

func gadget(name, rv string, mutate func(*thingsv1.Gadget)) *thingsv1.Gadget {
	g := &thingsv1.Gadget{
		TypeMeta: metav1.TypeMeta{Kind: "Gadget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}},
	}
	mutate(g)
	return g
}

// Every generated index function reads the field path its marker names:
// through pointers (nil gives no value), slices (each element), map keys
// (a missing key gives no value), named, bool and integer types.
func TestGeneratedIndexes(t *testing.T) {
	s, d := thingsv1syncers.NewGadgetDriver()
	zone := "eu-1"
	d.Add(
		gadget("full", "1", func(g *thingsv1.Gadget) {
			g.Labels = map[string]string{"example.com/team": "red"}
			g.Spec = thingsv1.GadgetSpec{Owner: "ann", Replicas: 3, Level: 7, Zone: &zone, Tags: []string{"a", "b"},
				Ports: []thingsv1.Port{{Name: "http"}, {Name: "grpc"}}, ParentRef: &thingsv1.ParentRef{Name: "root"}}
			g.Status = thingsv1.GadgetStatus{Phase: "Ready", Ready: true}
		}),
		gadget("bare", "2", func(g *thingsv1.Gadget) { g.Spec.Owner = "bob" }),
	)
	st := s.Store()
	for _, tt := range []struct {
		name string
		got  []*thingsv1.Gadget
		want []string
	}{
		{"ByOwner(ann)", st.ByOwner("ann"), []string{"full"}},
		{"ByOwner(bob)", st.ByOwner("bob"), []string{"bare"}},
		{"ByPhase(Ready)", st.ByPhase("Ready"), []string{"full"}},
		{"ByPhase()", st.ByPhase(""), []string{"bare"}},
		{"ByReady(true)", st.ByReady("true"), []string{"full"}},
		{"ByReady(false)", st.ByReady("false"), []string{"bare"}},
		{"ByReplicas(3)", st.ByReplicas("3"), []string{"full"}},
		{"ByLevel(7)", st.ByLevel("7"), []string{"full"}},
		{"ByZone(eu-1)", st.ByZone("eu-1"), []string{"full"}},
		{"ByZone()", st.ByZone(""), []string{}},
		{"ByTags(b)", st.ByTags("b"), []string{"full"}},
		{"ByPort(grpc)", st.ByPort("grpc"), []string{"full"}},
		{"ByTeam(red)", st.ByTeam("red"), []string{"full"}},
		{"ByTeam()", st.ByTeam(""), []string{}},
		{"ByParent(root)", st.ByParent("root"), []string{"full"}},
		{"ByKind(Gadget)", st.ByKind("Gadget"), []string{"bare", "full"}},
	} {
		if got := names(tt.got); !slices.Equal(got, tt.want) {
			t.Errorf("%s = %v, want %v", tt.name, got, tt.want)
		}
	}
	// The package's +syncer-gen:stripManagedFields applies to Gadget...
	if g, _ := st.Get("ns", "full"); g.ManagedFields != nil {
		t.Errorf("Gadget kept its managed fields: %v", g.ManagedFields)
	}
	// ...but Datum says stripManagedFields=false.
	ds, dd := thingsv1syncers.NewDatumDriver()
	dd.Add(&thingsv1.Datum{ObjectMeta: metav1.ObjectMeta{Name: "d", ResourceVersion: "1", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "test"}}}})
	if d, _ := ds.Store().Get("", "d"); len(d.ManagedFields) != 1 {
		t.Errorf("Datum lost its managed fields")
	}
	// An update moves an object between index values.
	d.Update(gadget("bare", "3", func(g *thingsv1.Gadget) { g.Spec.Owner = "ann" }))
	if got := names(st.ByOwner("ann")); !slices.Equal(got, []string{"bare", "full"}) {
		t.Errorf("after update ByOwner(ann) = %v", got)
	}
	if got := st.ByOwner("bob"); len(got) != 0 {
		t.Errorf("after update ByOwner(bob) = %v", names(got))
	}
}

func TestGeneratedResources(t *testing.T) {
	for _, tt := range []struct {
		name       string
		group      string
		resource   string
		namespaced bool
		got        func() (string, string, bool)
	}{
		{"Gadget", "things.golden.example.com", "gadgets", true, func() (string, string, bool) {
			r := thingsv1syncers.GadgetResource
			return r.Group, r.Resource, r.Namespaced
		}},
		{"Datum", "things.golden.example.com", "data", false, func() (string, string, bool) {
			r := thingsv1syncers.DatumResource
			return r.Group, r.Resource, r.Namespaced
		}},
		{"ConfigMap", "", "configmaps", true, func() (string, string, bool) {
			r := corev1syncers.ConfigMapResource
			return r.Group, r.Resource, r.Namespaced
		}},
	} {
		g, r, n := tt.got()
		if g != tt.group || r != tt.resource || n != tt.namespaced {
			t.Errorf("%s: got %q %q %v, want %q %q %v", tt.name, g, r, n, tt.group, tt.resource, tt.namespaced)
		}
	}
	if _, ok := corev1syncers.ConfigMapResource.NewList().(*corev1.ConfigMapList); !ok {
		t.Error("ConfigMapResource.NewList does not make a ConfigMapList")
	}
}
