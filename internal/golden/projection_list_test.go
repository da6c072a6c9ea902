package golden_test

import (
	"maps"
	"testing"

	thingsv1 "github.com/syncer-gen/syncer-gen/internal/golden/api/things/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/core/v1"
	thingsv1syncers "github.com/syncer-gen/syncer-gen/internal/golden/syncers/things/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
)

// A LIST page with "items" twice (a kube-apiserver never repeats a key; a
// proxy or a recorded page may): sigs.k8s.io/json, which apimachinery's
// JSON serializer reads LIST pages with, decodes the second array into the
// items the first made, merging them, and a projected list gives those
// items projected: here the labels the first array set, which the second
// one's empty map leaves, and the owner the second one omits.
func TestProjectedListItemsTwice(t *testing.T) {
	pods := []byte(`{"items":[{"metadata":{"labels":{"":""}}}],"items":[{"metadata":{"labels":{}}}]}`)
	var full corev1.PodList
	var nodePods corev1syncers.NodePodList
	if err := kjson.UnmarshalCaseSensitivePreserveInts(pods, &full); err != nil {
		t.Fatal(err)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(pods, &nodePods); err != nil {
		t.Fatal(err)
	}
	if len(full.Items) != 1 || len(full.Items[0].Labels) != 1 {
		t.Fatalf("the full decoder gave %+v; the test expects it to merge the two arrays", full.Items)
	}
	if len(nodePods.Items) != 1 || !maps.Equal(nodePods.Items[0].Labels, full.Items[0].Labels) {
		t.Errorf("NodePodList: items %+v, want the labels %v of the full decode", nodePods.Items, full.Items[0].Labels)
	}

	gadgets := []byte(`{"items":[{"spec":{"owner":"alice","dnsNames":["a"]}}],"items":[{"spec":{"dnsNames":["b"]}}]}`)
	var fullGadgets thingsv1.GadgetList
	var summaries thingsv1syncers.GadgetSummaryList
	if err := kjson.UnmarshalCaseSensitivePreserveInts(gadgets, &fullGadgets); err != nil {
		t.Fatal(err)
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(gadgets, &summaries); err != nil {
		t.Fatal(err)
	}
	if len(summaries.Items) != 1 || summaries.Items[0].Spec.Owner != fullGadgets.Items[0].Spec.Owner || fullGadgets.Items[0].Spec.Owner != "alice" {
		t.Errorf("GadgetSummaryList: items %+v, want the owner %q of the full decode", summaries.Items, fullGadgets.Items[0].Spec.Owner)
	}
}
