package main

import (
	"context"
	"fmt"
	"net/http"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// statusWriter writes widgets' status through the status subresource, over
// the set's HTTP client (a CRD project would use its client-gen client).
type statusWriter struct {
	client dynamic.Interface
}

func newStatusWriter(cfg *rest.Config, hc *http.Client) (*statusWriter, error) {
	c, err := dynamic.NewForConfigAndClient(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("widgets status client: %w", err)
	}
	return &statusWriter{client: c}, nil
}

// update writes w.Status, guarded by w's resourceVersion (a conflict if
// the widget changed since), and returns the server's answer.
func (s *statusWriter) update(ctx context.Context, w *shopv1alpha1.Widget) (*shopv1alpha1.Widget, error) {
	m, err := kruntime.DefaultUnstructuredConverter.ToUnstructured(w)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(shopv1alpha1.SchemeGroupVersion.String())
	u.SetKind("Widget")
	u, err = s.client.Resource(shopv1alpha1.SchemeGroupVersion.WithResource("widgets")).Namespace(w.Namespace).
		UpdateStatus(ctx, u, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	out := &shopv1alpha1.Widget{}
	return out, kruntime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out)
}
