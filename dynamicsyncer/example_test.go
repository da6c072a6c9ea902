package dynamicsyncer_test

import (
	"fmt"

	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// A metadata syncer with an index of owners, fed by a driver as a unit
// test of a garbage-collector-like program would feed it.
func ExampleNewMetadataDriver() {
	owners := func(m *metav1.PartialObjectMetadata) []string {
		var uids []string
		for _, r := range m.OwnerReferences {
			uids = append(uids, string(r.UID))
		}
		return uids
	}
	res := runtime.Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	s, d := dynamicsyncer.NewMetadataDriver(res, runtime.WithIndex("owner", owners))
	rs := func(name, rv, owner string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: rv,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: types.UID(owner)}}}}
	}
	d.Add(rs("web-1", "1", "uid-web"), rs("web-2", "2", "uid-web"), rs("db-1", "3", "uid-db"))
	d.Sync()
	fmt.Println(len(s.Store().ByIndex("owner", "uid-web")), "replica sets owned by web")
	// Output: 2 replica sets owned by web
}

// An unstructured syncer fed by a driver: objects are JSON's values.
func ExampleNewUnstructuredDriver() {
	res := runtime.Resource{Group: "shop.example.com", Version: "v1alpha1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	s, d := dynamicsyncer.NewUnstructuredDriver(res)
	d.Add(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "shop.example.com/v1alpha1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "shop", "name": "w", "resourceVersion": "1"},
		"spec":     map[string]any{"replicas": int64(3)},
	}})
	w, _ := s.Store().Get("shop", "w")
	replicas, _, _ := unstructured.NestedInt64(w.Object, "spec", "replicas")
	fmt.Println(w.GetKind(), replicas)
	// Output: Widget 3
}
