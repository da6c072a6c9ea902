package testbed

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// ApplyCRD applies the CustomResourceDefinition in manifest (YAML or JSON)
// with server-side apply, so that it may be called again, and waits until
// the server serves it (Established) or timeout passes.
func ApplyCRD(ctx context.Context, cfg *rest.Config, manifest []byte, timeout time.Duration) error {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(manifest, &obj.Object); err != nil {
		return fmt.Errorf("CRD manifest: %w", err)
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("CRD %s: %w", obj.GetName(), err)
	}
	crds := client.Resource(crdResource)
	if _, err := crds.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "syncer-gen-testbed", Force: true}); err != nil {
		return fmt.Errorf("CRD %s: %w", obj.GetName(), err)
	}
	var why string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Established" {
				why, _ = m["message"].(string)
				return m["status"] == "True", nil
			}
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("CRD %s not Established (%s): %w", obj.GetName(), why, err)
	}
	return nil
}

// InstallCRD applies the CRD in manifest to s and waits until it is served.
func (s *Server) InstallCRD(t testing.TB, manifest []byte) {
	t.Helper()
	if err := ApplyCRD(t.Context(), s.Config(), manifest, time.Minute); err != nil {
		t.Fatal(err)
	}
}
