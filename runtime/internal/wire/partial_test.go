package wire

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// partialCodecs returns the client negotiators of newSource for a
// metadata-only Syncer of ConfigMaps typed PartialObjectMetadata, with
// and without fastDecoding (opts), and a count of the decodes that the
// fast one left to the plain serializers under it.
func partialCodecs(opts ...Option) (fast, plain kruntime.ClientNegotiator, calls *int) {
	gv := schema.GroupVersion{Version: "v1"}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMap"), &metav1.PartialObjectMetadata{})
	scheme.AddKnownTypeWithName(gv.WithKind("ConfigMapList"), &metav1.PartialObjectMetadataList{})
	scheme.AddKnownTypeWithName(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"), &metav1.PartialObjectMetadata{})
	scheme.AddKnownTypeWithName(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadataList"), &metav1.PartialObjectMetadataList{})
	metav1.AddToGroupVersion(scheme, gv)
	base := serializer.NewCodecFactory(scheme).WithoutConversion()
	calls = new(int)
	fast = kruntime.NewClientNegotiator(NewDecoding(countingNS{base, calls}, gv.WithKind("ConfigMap"),
		reflect.TypeFor[metav1.PartialObjectMetadata](), opts...), gv)
	return fast, kruntime.NewClientNegotiator(base, gv), calls
}

// What a server sends for a ConfigMap to a request that asks for
// PartialObjectMetadata, and the ConfigMap itself, both decode on the
// fast path (no decode left to the plain serializers) into the metadata
// the plain decoders give, in protobuf and JSON; without
// WithPartialObjectMetadata, PartialObjectMetadata goes to the plain
// serializers.
func TestFastDecodesPartialObjectMetadata(t *testing.T) {
	meta := metav1.ObjectMeta{Namespace: "ns", Name: "a", UID: "u", ResourceVersion: "5", Labels: map[string]string{"x": "y"},
		Annotations: map[string]string{"a": "b"}, OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "p", UID: "o"}}}
	objects := map[string]kruntime.Object{
		"partial":   &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: meta},
		"configmap": &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta, Data: map[string]string{"k": "v"}},
	}
	encoders := serializer.NewCodecFactory(kruntime.NewScheme())
	for _, media := range []string{kruntime.ContentTypeProtobuf, kruntime.ContentTypeJSON} {
		info, _ := kruntime.SerializerInfoForMediaType(encoders.SupportedMediaTypes(), media)
		for name, obj := range objects {
			data := encode(t, info.Serializer, obj)
			for _, partial := range []bool{true, false} {
				var opts []Option
				if partial {
					opts = append(opts, WithPartialObjectMetadata())
				}
				fast, plain, calls := partialCodecs(opts...)
				fd, err := fast.Decoder(media, nil)
				if err != nil {
					t.Fatal(err)
				}
				pd, _ := plain.Decoder(media, nil)
				got, err := kruntime.Decode(fd, data)
				if err != nil {
					t.Fatalf("%s %s: %v", media, name, err)
				}
				want, err := kruntime.Decode(pd, data)
				if err != nil {
					t.Fatalf("%s %s, plain: %v", media, name, err)
				}
				if !reflect.DeepEqual(got.(*metav1.PartialObjectMetadata).ObjectMeta, meta) || !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s: got %+v, plain %+v", media, name, got, want)
				}
				if wantCalls := map[bool]int{true: 0, false: 1}[partial || name == "configmap"]; *calls != wantCalls {
					t.Errorf("%s %s, partial %v: %d decodes left to the plain serializers, want %d", media, name, partial, *calls, wantCalls)
				}
			}
		}
	}
}
