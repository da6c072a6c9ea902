package wire

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// plainSerializers returns apimachinery's protobuf and JSON serializers of
// a scheme that knows ConfigMaps, by media type.
func plainSerializers(tb testing.TB) map[string]kruntime.Serializer {
	gv := schema.GroupVersion{Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &corev1.ConfigMap{})
	metav1.AddToGroupVersion(scheme, gv)
	out := map[string]kruntime.Serializer{}
	for _, info := range serializer.NewCodecFactory(scheme).WithoutConversion().SupportedMediaTypes() {
		if info.MediaType == kruntime.ContentTypeProtobuf || info.MediaType == kruntime.ContentTypeJSON {
			out[info.MediaType] = info.Serializer
		}
	}
	if len(out) != 2 {
		tb.Fatalf("serializers %v, want protobuf and JSON", out)
	}
	return out
}

func encoded(tb testing.TB, s kruntime.Encoder, obj kruntime.Object) []byte {
	var b bytes.Buffer
	if err := s.Encode(obj, &b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// bookmarkObjects are bookmarks as kube-apiserver sends them (an object of
// the watched kind with only a resourceVersion, and the end annotation at
// the end of a WatchList's initial events), and objects that are not
// quite: other annotations beside it, a value other than "true".
func bookmarkObjects() []*corev1.ConfigMap {
	cm := func(rv string, ann map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv, Annotations: ann}}
	}
	return []*corev1.ConfigMap{
		cm("17", nil),
		cm("18", map[string]string{metav1.InitialEventsAnnotationKey: "true"}),
		cm("19", map[string]string{"a": "b", metav1.InitialEventsAnnotationKey: "true", "z": "y"}),
		cm("20", map[string]string{metav1.InitialEventsAnnotationKey: "false"}),
		cm("", map[string]string{}),
	}
}

// The bookmark read from an object's bytes tells what decoding the object
// tells: its resourceVersion, and whether the end annotation is "true".
func TestReadBookmarkAgreesWithDecoding(t *testing.T) {
	serializers := plainSerializers(t)
	for _, obj := range bookmarkObjects() {
		want := Bookmark{ResourceVersion: obj.ResourceVersion, InitialEventsEnd: obj.Annotations[metav1.InitialEventsAnnotationKey] == "true"}
		for name, s := range serializers {
			got, ok := ReadBookmark(encoded(t, s, obj))
			if !ok || got != want {
				t.Errorf("%s of %v: %+v, %t; want %+v", name, obj.ObjectMeta, got, ok, want)
			}
		}
	}
}

// What ReadBookmark cannot be sure of is left to the decoder.
func TestReadBookmarkLeavesTheUnusual(t *testing.T) {
	for _, raw := range []string{
		``, `null`, `[]`, `{`, `{}`, `{"metadata":null}`,
		`{"metadata":{"resourceVersion":"1\u0032"}}`,                 // an escape
		`{"metadata":{"resourceVersion":"1","resourceVersion":"2"}}`, // a member twice
		`{"metadata":{"ResourceVersion":"1"}}`,                       // a near miss encoding/json takes
		`{"metadata":{"resourceVersion":1}}`,                         // not a string
		`{"metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":true}}}`,
		"k8s\x00\x0a\x03abc", // a truncated envelope
	} {
		if b, ok := ReadBookmark([]byte(raw)); ok {
			t.Errorf("ReadBookmark(%q) = %+v, ok; want it left to the decoder", raw, b)
		}
	}
}

// FuzzReadBookmark: whenever apimachinery's decoder reads an object, a
// bookmark read from the same bytes either is left to it or tells the same.
func FuzzReadBookmark(f *testing.F) {
	serializers := plainSerializers(f)
	for _, obj := range bookmarkObjects() {
		for _, s := range serializers {
			f.Add(encoded(f, s, obj))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		b, ok := ReadBookmark(raw)
		if !ok {
			return
		}
		for _, s := range serializers {
			obj, _, err := s.Decode(raw, nil, nil)
			if err != nil {
				continue
			}
			m, isMeta := obj.(metav1.Object)
			if !isMeta {
				continue
			}
			want := Bookmark{ResourceVersion: m.GetResourceVersion(), InitialEventsEnd: m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"}
			if b != want {
				t.Fatalf("ReadBookmark(%q) = %+v; the decoder read %+v", raw, b, want)
			}
		}
	})
}
