package wire

import (
	"bytes"
	"reflect"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// protobufCodecs returns the fast and the plain protobuf serializers of a
// scheme that knows ConfigMaps, as newSource builds them.
func protobufCodecs(t *testing.T) (fast, plain kruntime.SerializerInfo) {
	t.Helper()
	gv := schema.GroupVersion{Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &corev1.ConfigMap{})
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMapList"), &corev1.ConfigMapList{})
	metav1.AddToGroupVersion(scheme, gv)
	base := serializer.NewCodecFactory(scheme).WithoutConversion()
	pick := func(ns kruntime.NegotiatedSerializer) kruntime.SerializerInfo {
		for _, info := range ns.SupportedMediaTypes() {
			if info.MediaType == kruntime.ContentTypeProtobuf {
				return info
			}
		}
		t.Fatal("no protobuf serializer")
		return kruntime.SerializerInfo{}
	}
	return pick(NewDecoding(base, gv.WithKind("ConfigMap"), reflect.TypeFor[corev1.ConfigMap]())), pick(base)
}

func encode(t testing.TB, s kruntime.Encoder, obj kruntime.Object) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFastProtobufDecodesOwnKindLikeThePlainDecoder(t *testing.T) {
	fast, plain := protobufCodecs(t)
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "5", Labels: map[string]string{"x": "y"}},
		Data:       map[string]string{"k": "v"},
	}
	data := encode(t, plain.Serializer, cm)
	got, gvk, err := fast.Serializer.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := plain.Serializer.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast decode:\n%#v\nplain decode:\n%#v", got, want)
	}
	if *gvk != (schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}) {
		t.Errorf("gvk = %v", gvk)
	}
	// The decoded object shares no memory with the input.
	for i := range data {
		data[i] = 0
	}
	if c := got.(*corev1.ConfigMap); c.Name != "a" || c.Data["k"] != "v" {
		t.Errorf("decoded object changed with its input: %+v", c)
	}
}

// An object of a named group gets the same apiVersion ("apps/v1") as from
// the plain decoder, and so does the kind returned, which is shared.
func TestFastProtobufDecodesGroupedKindLikeThePlainDecoder(t *testing.T) {
	gv := schema.GroupVersion{Group: "apps", Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("Deployment"), &appsv1.Deployment{})
	metav1.AddToGroupVersion(scheme, gv)
	base := serializer.NewCodecFactory(scheme).WithoutConversion()
	var fast, plain kruntime.Serializer
	for _, info := range NewDecoding(base, gv.WithKind("Deployment"), reflect.TypeFor[appsv1.Deployment]()).SupportedMediaTypes() {
		if info.MediaType == kruntime.ContentTypeProtobuf {
			fast = info.Serializer
		}
	}
	for _, info := range base.SupportedMediaTypes() {
		if info.MediaType == kruntime.ContentTypeProtobuf {
			plain = info.Serializer
		}
	}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "d", ResourceVersion: "7"},
	}
	data := encode(t, plain, d)
	want, _, err := plain.Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, gvk, err := fast.Decode(data, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("fast decode:\n%#v\nplain decode:\n%#v", got, want)
		}
		if *gvk != gv.WithKind("Deployment") {
			t.Errorf("gvk = %v", gvk)
		}
	}
}

func TestFastProtobufLeavesOtherKindsToThePlainDecoder(t *testing.T) {
	fast, plain := protobufCodecs(t)
	st := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old"}
	got, _, err := fast.Serializer.Decode(encode(t, plain.Serializer, st), nil, nil)
	if s, ok := got.(*metav1.Status); err != nil || !ok || s.Code != 410 || s.Message != "too old" {
		t.Errorf("Status: %#v, %v", got, err)
	}
	list := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"},
		Items: []corev1.ConfigMap{{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}}
	into := &corev1.ConfigMapList{}
	if _, _, err := fast.Serializer.Decode(encode(t, plain.Serializer, list), nil, into); err != nil || len(into.Items) != 1 {
		t.Errorf("list: %+v, %v", into, err)
	}
	if _, _, err := fast.Serializer.Decode([]byte("k8s\x00\xff\xff"), nil, nil); err == nil {
		t.Error("garbage decoded without error")
	}
}

func TestFastWatchEventDecodeMatchesPlain(t *testing.T) {
	fast, plain := protobufCodecs(t)
	raw := encode(t, plain.Serializer, &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	frame := encode(t, plain.StreamSerializer.Serializer, &metav1.WatchEvent{Type: "MODIFIED", Object: kruntime.RawExtension{Raw: raw}})
	var got, want metav1.WatchEvent
	if _, _, err := fast.StreamSerializer.Serializer.Decode(frame, nil, &got); err != nil {
		t.Fatal(err)
	}
	if _, _, err := plain.StreamSerializer.Serializer.Decode(frame, nil, &want); err != nil {
		t.Fatal(err)
	}
	if got.Type != want.Type || !bytes.Equal(got.Object.Raw, want.Object.Raw) {
		t.Errorf("fast %q %x, plain %q %x", got.Type, got.Object.Raw, want.Type, want.Object.Raw)
	}
}

func TestEachFieldRejectsMalformedInput(t *testing.T) {
	for name, msg := range map[string][]byte{
		"length past the end": {0x0a, 0x05, 'a'},
		"group wire type":     {0x0b},
		"truncated varint":    {0x08, 0x80},
		"truncated fixed64":   {0x09, 1, 2},
	} {
		if eachField(msg, func(protowire.Number, []byte) {}) {
			t.Errorf("%s: accepted", name)
		}
	}
	var seen []protowire.Number
	ok := eachField([]byte{0x08, 0x96, 0x01, 0x12, 0x01, 'x', 0x1d, 1, 2, 3, 4}, func(n protowire.Number, b []byte) { seen = append(seen, n) })
	if !ok || len(seen) != 1 || seen[0] != 2 {
		t.Errorf("eachField = %v, %v", ok, seen)
	}
}
