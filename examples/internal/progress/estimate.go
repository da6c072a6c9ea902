package progress

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
)

// Estimate returns how many objects of gvr the server holds in namespace
// (all namespaces when empty; pass "" for cluster-scoped resources). It
// asks for a single item's metadata and reads the list's
// remainingItemCount, so it costs the server almost nothing for any
// resource, built-in or custom. It returns -1 when the server does not
// tell (remainingItemCount is not given for lists with field or label
// selectors, for example).
func Estimate(ctx context.Context, cfg *rest.Config, gvr schema.GroupVersionResource, namespace string) (int, error) {
	client, err := metadata.NewForConfig(cfg)
	if err != nil {
		return 0, fmt.Errorf("estimate %s: %w", gvr.GroupResource(), err)
	}
	var r metadata.ResourceInterface = client.Resource(gvr)
	if namespace != "" {
		r = client.Resource(gvr).Namespace(namespace)
	}
	list, err := r.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("estimate %s: %w", gvr.GroupResource(), err)
	}
	return total(list), nil
}

// total returns the number of objects a list of limit 1 stands for, or -1
// when it cannot be known from the list.
func total(list *metav1.PartialObjectMetadataList) int {
	n := len(list.Items)
	switch {
	case list.RemainingItemCount != nil:
		return n + int(*list.RemainingItemCount)
	case list.Continue == "":
		return n // the whole list fitted in one page
	default:
		return -1
	}
}
