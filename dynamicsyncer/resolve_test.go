package dynamicsyncer_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/dynamicsyncer/resolve"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
)

// The resolver finds a resource's kind and scope from its name (plural or
// singular, with or without a version), and its name and scope from its
// kind; it refuses what does not exist and what cannot be listed and
// watched, and finds a CRD installed after it first looked.
func TestResolver(t *testing.T) {
	srv := testbed.Shared(t)
	r, err := resolve.NewResolver(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		gvr  schema.GroupVersionResource
		want runtime.Resource
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, configMaps},
		{schema.GroupVersionResource{Resource: "configmap"}, configMaps},
		{schema.GroupVersionResource{Group: "apps", Resource: "deployments"},
			runtime.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}},
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			runtime.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}},
	} {
		got, err := r.Resource(c.gvr)
		if err != nil || !sameResource(got, c.want) {
			t.Errorf("Resource(%v) = %+v, %v; want %+v", c.gvr, got, err, c.want)
		}
	}
	for _, c := range []struct {
		gvk  schema.GroupVersionKind
		want runtime.Resource
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, configMaps},
		{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
			runtime.Resource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole"}},
	} {
		got, err := r.Kind(c.gvk)
		if err != nil || !sameResource(got, c.want) {
			t.Errorf("Kind(%v) = %+v, %v; want %+v", c.gvk, got, err, c.want)
		}
	}
	for _, c := range []struct {
		gvr  schema.GroupVersionResource
		want string
	}{
		{schema.GroupVersionResource{Group: "nowhere.example.com", Version: "v1", Resource: "things"}, "things.nowhere.example.com/v1"},
		{schema.GroupVersionResource{Group: "authentication.k8s.io", Version: "v1", Resource: "tokenreviews"}, "does not serve list and watch"},
	} {
		if _, err := r.Resource(c.gvr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resource(%v): %v, want an error saying %q", c.gvr, err, c.want)
		}
	}

	// A CRD installed after the resolver looked is found: it reads
	// discovery again.
	late := schema.GroupVersionKind{Group: "late.example.com", Version: "v1", Kind: "Late"}
	if _, err := r.Kind(late); err == nil {
		t.Fatal("found the kind of a CRD not installed yet")
	}
	srv.InstallCRD(t, []byte(strings.NewReplacer("blobs", "lates", "blob", "late", "Blob", "Late", "dynamic.example.com", "late.example.com").Replace(blobsCRD)))
	t.Cleanup(func() { deleteCRD(t, srv, "lates.late.example.com") }) // so that a run again (-count) finds it missing
	got, err := r.Kind(late)
	want := runtime.Resource{Group: "late.example.com", Version: "v1", Resource: "lates", Kind: "Late", Namespaced: true}
	if err != nil || !sameResource(got, want) {
		t.Errorf("Kind(%v) after its CRD was installed = %+v, %v; want %+v", late, got, err, want)
	}
}

func sameResource(a, b runtime.Resource) bool {
	return a.Group == b.Group && a.Version == b.Version && a.Resource == b.Resource && a.Kind == b.Kind &&
		a.Namespaced == b.Namespaced && a.NewList == nil && !a.MetadataOnly
}

// deleteCRD deletes the CRD name and waits until the server no longer has
// it.
func deleteCRD(t *testing.T, srv *testbed.Server, name string) {
	t.Helper()
	crds := dynamic.NewForConfigOrDie(srv.Config()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crds.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("delete CRD %s: %v", name, err)
		return
	}
	err := wait.PollUntilContextCancel(ctx, 50*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		_, err := crds.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("CRD %s not gone: %v", name, err)
	}
}
