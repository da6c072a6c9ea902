package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// route is a custom resource with the shapes of real third-party ones
// (gateway-api's HTTPRoute, cert-manager's Certificate): lists and maps
// that may be empty, Quantities, conditions, an untyped field.
type route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              routeSpec `json:"spec"`
}

type routeSpec struct {
	Hostnames  []string           `json:"hostnames,omitempty"`
	Rules      []routeRule        `json:"rules,omitempty"`
	Selector   map[string]string  `json:"selector,omitempty"`
	Size       resource.Quantity  `json:"size,omitempty"`
	Divisor    *resource.Quantity `json:"divisor,omitempty"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Extra      any                `json:"extra,omitempty"`
}

type routeRule struct {
	Matches     []map[string]string `json:"matches,omitempty"`
	Filters     []string            `json:"filters,omitempty"`
	BackendRefs []string            `json:"backendRefs,omitempty"`
}

func (o *route) DeepCopyObject() kruntime.Object { c := *o; return &c }

type routeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []route `json:"items"`
}

func (l *routeList) DeepCopyObject() kruntime.Object { c := *l; return &c }

// freeSpecCRD is the manifest of a namespaced CRD of group/v1 whose spec
// takes anything: what the tests' Go types make of it is the point.
func freeSpecCRD(group, plural, kind string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"%[2]s.%[1]s"},
"spec":{"group":"%[1]s","scope":"Namespaced","names":{"plural":"%[2]s","singular":"%[4]s","kind":"%[3]s","listKind":"%[3]sList"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`, group, plural, kind, strings.ToLower(kind))
}

var routes = runtime.Resource{Group: "warm.example.com", Version: "v1", Resource: "routes", Kind: "Route", Namespaced: true,
	NewList: func() kruntime.Object { return &routeList{} }}

// A warm start gives back the objects a cold sync decodes from the
// server's bytes, reflect.DeepEqual: empty lists and maps stay empty (not
// nil), Quantities keep their format, an absent one stays absent.
func TestWarmStartGivesBackWhatTheServerSent(t *testing.T) {
	srv := testbed.Shared(t)
	srv.InstallCRD(t, freeSpecCRD(routes.Group, routes.Resource, routes.Kind))
	ctx := t.Context()
	ns := srv.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(srv.Config()).Resource(schema.GroupVersionResource{Group: "warm.example.com", Version: "v1", Resource: "routes"}).Namespace(ns)
	specs := []string{
		`{"hostnames":[],"rules":[{"matches":[{}],"filters":[],"backendRefs":["a"]}],"selector":{},"size":"1.5Ki","conditions":[]}`,
		`{"hostnames":["a.example.com"],"size":"1536","divisor":"1m","extra":{"a":[1,2.5,"s",true,null,{}],"b":[]}}`,
		`{"size":"100M","conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-11-24T10:00:00Z","reason":"R","message":""}]}`,
		`{}`,
	}
	for i, spec := range specs {
		var s map[string]any
		if err := json.Unmarshal([]byte(spec), &s); err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "warm.example.com/v1", "kind": "Route",
			"metadata": map[string]any{"name": fmt.Sprint("r", i), "labels": map[string]any{}}, "spec": s}}
		if _, err := dyn.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "routes.snapshot")
	sync := func(want runtime.Mode) map[string]*route {
		t.Helper()
		s, err := runtime.New[*route](srv.Config(), routes, runtime.WithNamespace(ns), runtime.WithSnapshot(path))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		wctx, wcancel := context.WithTimeout(ctx, time.Minute)
		defer wcancel()
		if err := s.WaitForSync(wctx); err != nil {
			t.Fatalf("not synced: %v (last error %v)", err, s.LastError())
		}
		if s.Mode() != want {
			t.Fatalf("mode %s, want %s", s.Mode(), want)
		}
		got := map[string]*route{}
		for _, o := range s.Store().List() {
			got[o.Name] = o
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return got
	}
	cold := sync(runtime.ModeWatchList)
	warm := sync(runtime.ModeWarm)
	if len(cold) != len(specs) || len(warm) != len(cold) {
		t.Fatalf("%d objects cold, %d warm; want %d", len(cold), len(warm), len(specs))
	}
	for name, c := range cold {
		if w := warm[name]; !reflect.DeepEqual(c, w) {
			t.Errorf("%s differs after a warm start:\ncold %#v\nwarm %#v", name, c.Spec, w.Spec)
		}
	}
}
