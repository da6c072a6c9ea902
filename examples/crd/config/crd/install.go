package crd

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// Manifest is the widgets CRD, as in shop.example.com_widgets.yaml.
//
//go:embed shop.example.com_widgets.yaml
var Manifest []byte

// FieldManager is the server-side apply field manager Install uses.
const FieldManager = "syncer-gen-examples"

var crdResource = schema.GroupVersionResource{
	Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions",
}

// Object returns Manifest parsed.
func Object() (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(Manifest, &obj.Object); err != nil {
		return nil, fmt.Errorf("parse widgets CRD manifest: %w", err)
	}
	return obj, nil
}

// Install applies the widgets CRD with server-side apply (so it may be
// called again) and waits until it is Established, that is until the
// server serves widgets, or until timeout.
func Install(ctx context.Context, cfg *rest.Config, timeout time.Duration) error {
	obj, err := Object()
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("install CRD %s: %w", obj.GetName(), err)
	}
	crds := client.Resource(crdResource)
	_, err = crds.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("install CRD %s: %w", obj.GetName(), err)
	}
	var last string
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := crds.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		established, why := condition(got, "Established")
		last = why
		return established, nil
	})
	if err != nil {
		if last != "" {
			return fmt.Errorf("CRD %s not Established (%s): %w", obj.GetName(), last, err)
		}
		return fmt.Errorf("CRD %s not Established: %w", obj.GetName(), err)
	}
	return nil
}

// condition tells whether the CRD's condition typ is True, and its message.
func condition(crd *unstructured.Unstructured, typ string) (bool, string) {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		msg, _ := m["message"].(string)
		return m["status"] == "True", msg
	}
	return false, ""
}
