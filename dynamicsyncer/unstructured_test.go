package dynamicsyncer_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
)

// blobsCRD is a custom resource whose spec keeps whatever it is given:
// nested objects and lists, integers and floats, empty maps and lists,
// nulls.
const blobsCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "blobs.dynamic.example.com"},
  "spec": {
    "group": "dynamic.example.com", "scope": "Namespaced",
    "names": {"plural": "blobs", "singular": "blob", "kind": "Blob", "listKind": "BlobList"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}]
  }
}`

var blobsGVR = schema.GroupVersionResource{Group: "dynamic.example.com", Version: "v1", Resource: "blobs"}

// blob returns Blob i, whose spec has a value of every JSON shape (read
// as the dynamic client reads JSON: integers as int64).
func blob(ns string, i int) *unstructured.Unstructured {
	var spec map[string]any
	if err := utiljson.Unmarshal(fmt.Appendf(nil, `{
		"n": %d, "big": 9007199254740993, "neg": -42, "float": 1.5, "tiny": -2.5e-7, "whole": 3.0,
		"s": "ü \u2028 \"q\"", "t": true, "f": false, "null": null,
		"emptyMap": {}, "emptyList": [],
		"nested": {"a": [{"b": {"c": [1, 2.25, "x", true, null, {}, []]}}], "deep": {"deeper": {"deepest": {"n": 0}}}},
		"list": [[], [{}], [[1]]]
	}`, i), &spec); err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "dynamic.example.com/v1", "kind": "Blob",
		"metadata": map[string]any{"name": fmt.Sprintf("b%02d", i), "namespace": ns, "labels": map[string]any{"i": fmt.Sprint(i)}},
		"spec":     spec,
	}}
}

// sameAsDynamic says how store differs from what the dynamic client reads
// of ri by LIST, object for object, whole ("" when it does not).
func sameAsDynamic(t *testing.T, ri dynamic.ResourceInterface, store *runtime.Store[*unstructured.Unstructured]) string {
	l, err := ri.List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != store.Len() {
		return fmt.Sprintf("%d objects, the dynamic client %d", store.Len(), len(l.Items))
	}
	for _, want := range l.Items {
		got, ok := store.Get(want.GetNamespace(), want.GetName())
		if !ok {
			return want.GetName() + " missing"
		}
		if !reflect.DeepEqual(got.Object, want.Object) {
			g, _ := json.Marshal(got.Object)
			w, _ := json.Marshal(want.Object)
			return fmt.Sprintf("%s:\n got %s\nwant %s", want.GetName(), g, w)
		}
	}
	return ""
}

// An unstructured syncer holds what client-go's dynamic client reads,
// object for object and value for value (int64 and float64 numbers,
// empty maps and lists, nulls, nested lists of objects): of a custom
// resource and of ConfigMaps, cold (WatchList, LIST + WATCH), under
// writes, and across a warm restart, whose unchanged objects come back
// from the snapshot as they were read.
func TestUnstructuredSyncerMatchesDynamicClient(t *testing.T) {
	srv := testbed.Shared(t)
	srv.InstallCRD(t, []byte(blobsCRD))
	cs := srv.Client()
	ns := srv.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(srv.Config())
	blobs := dyn.Resource(blobsGVR).Namespace(ns)
	const objects = 12
	for i := range objects {
		if _, err := blobs.Create(t.Context(), blob(ns, i), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	createConfigMaps(t, cs, ns, 0, 5)
	blobsRes := runtime.Resource{Group: "dynamic.example.com", Version: "v1", Resource: "blobs", Kind: "Blob", Namespaced: true}
	patch := func(i int, body string) {
		t.Helper()
		if _, err := blobs.Patch(t.Context(), fmt.Sprintf("b%02d", i), types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	writes := func(round int) {
		patch(0, fmt.Sprintf(`{"spec":{"n":%d.5,"float":%d,"emptyMap":{"now":{}},"emptyList":[[]],"added":{"x":[]}}}`, round, round))
		patch(1, `{"spec":{"nested":null,"s":null}}`)
		patch(2, fmt.Sprintf(`{"metadata":{"labels":{"round":"%d"}},"spec":{"list":[]}}`, round))
		if err := blobs.Delete(t.Context(), "b03", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := blobs.Create(t.Context(), blob(ns, 3), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		opts []runtime.Option
	}{
		{"watchlist", nil},
		{"list", []runtime.Option{runtime.WithoutWatchList(), runtime.WithPageSize(5)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := append([]runtime.Option{runtime.WithNamespace(ns)}, c.opts...)
			s, err := dynamicsyncer.NewUnstructured(srv.Config(), blobsRes, opts...)
			if err != nil {
				t.Fatal(err)
			}
			cms, err := dynamicsyncer.NewUnstructured(srv.Config(), configMaps, opts...)
			if err != nil {
				t.Fatal(err)
			}
			start(t, s)
			start(t, cms)
			eventually(t, "blobs as the dynamic client reads them", func() string { return sameAsDynamic(t, blobs, s.Store()) })
			eventually(t, "ConfigMaps as the dynamic client reads them", func() string {
				return sameAsDynamic(t, dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace(ns), cms.Store())
			})
			writes(len(c.name))
			eventually(t, "blobs after writes", func() string { return sameAsDynamic(t, blobs, s.Store()) })
			// The values are what JSON holds: the equality above compares them.
			b, _ := s.Store().Get(ns, "b05")
			spec := b.Object["spec"].(map[string]any)
			if spec["big"] != int64(9007199254740993) || spec["float"] != 1.5 || spec["null"] != nil || spec["emptyMap"] == nil ||
				len(spec["emptyList"].([]any)) != 0 || b.GetKind() != "Blob" || b.GetAPIVersion() != "dynamic.example.com/v1" {
				t.Errorf("b05: %#v", b.Object)
			}
		})
	}

	t.Run("warm", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "blobs.snapshot")
		opts := []runtime.Option{runtime.WithNamespace(ns), runtime.WithSnapshot(path)}
		first, err := dynamicsyncer.NewUnstructured(srv.Config(), blobsRes, opts...)
		if err != nil {
			t.Fatal(err)
		}
		stop := start(t, first)
		eventually(t, "blobs as the dynamic client reads them", func() string { return sameAsDynamic(t, blobs, first.Store()) })
		stop()
		writes(7) // while it is down
		second, err := dynamicsyncer.NewUnstructured(srv.Config(), blobsRes, opts...)
		if err != nil {
			t.Fatal(err)
		}
		start(t, second)
		if second.Mode() != runtime.ModeWarm {
			t.Fatalf("the second run synced in mode %s, want warm", second.Mode())
		}
		// Checked at once: the unchanged objects are those of the snapshot.
		if d := sameAsDynamic(t, blobs, second.Store()); d != "" {
			t.Errorf("after the warm start: %s", d)
		}
		writes(8)
		eventually(t, "blobs after writes", func() string { return sameAsDynamic(t, blobs, second.Store()) })
	})
}
