package runtime

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// Types with the generated protobuf methods (the built-in APIs) are saved
// in protobuf and come back with their kind set, as the server's decoder
// sets it; the others (CRD types) with valuecodec.
func TestSnapshotCodecs(t *testing.T) {
	cms := codecFor[*corev1.ConfigMap](Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true})
	in := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	b, err := cms.Encode(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cms.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if cms.Name != "protobuf" || out.Name != "a" || out.Data["k"] != "v" || out.Kind != "ConfigMap" || out.APIVersion != "v1" {
		t.Errorf("codec %s gave %+v", cms.Name, out)
	}
	if w := codecFor[*shopv1alpha1.Widget](Resource{}); w.Name != "value" {
		t.Errorf("codec for a CRD type: %s, want value", w.Name)
	}
}
