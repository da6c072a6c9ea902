package runtime

import (
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// Types with the generated protobuf methods (the built-in APIs) are saved
// in protobuf, the others (CRD types) with valuecodec. Either gives back
// the object as stored, its apiVersion and kind included: none where it
// had none (a typed or metadata Syncer's objects), the ones it had where
// it had them (issue 42, defect 10: a restored object had the resource's
// kind where the cold sync's had none).
func TestSnapshotCodecs(t *testing.T) {
	cms := codecFor[*corev1.ConfigMap]()
	if cms.Name != "protobuf" {
		t.Fatalf("codec for ConfigMaps: %s, want protobuf", cms.Name)
	}
	bare := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	kinded := bare.DeepCopy()
	kinded.APIVersion, kinded.Kind = "v1", "ConfigMap"
	var outs []*corev1.ConfigMap
	for _, in := range []*corev1.ConfigMap{bare, kinded, kinded} {
		b, err := cms.Encode(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cms.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("came back as %+v, not %+v", out, in)
		}
		outs = append(outs, out)
	}
	for _, b := range [][]byte{nil, {2, 'v'}, {2, 'v', '1', 9, 'C'}} {
		if _, err := cms.Decode(b); err == nil {
			t.Errorf("%q decoded", b)
		}
	}
	if unsafe.StringData(outs[1].Kind) != unsafe.StringData(outs[2].Kind) {
		t.Error("two objects read came back with a kind each, not one shared")
	}
	meta := codecFor[*metav1.PartialObjectMetadata]()
	in := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "m", Labels: map[string]string{"a": "b"}}}
	b, err := meta.Encode(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := meta.Decode(b); err != nil || !reflect.DeepEqual(out, in) || meta.Name != "protobuf" {
		t.Errorf("%s codec: metadata came back as %+v (%v), not %+v", meta.Name, out, err, in)
	}
	if w := codecFor[*shopv1alpha1.Widget](); w.Name != "value" {
		t.Errorf("codec for a CRD type: %s, want value", w.Name)
	}
}
