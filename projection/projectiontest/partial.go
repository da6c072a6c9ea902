package projectiontest

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// PartialObjectMetadata checks a projection of metadata only, whose syncer
// asks the server for PartialObjectMetadata rather than whole objects: on
// random objects of U, its decoders must read each object's
// PartialObjectMetadata (as the server converts it: every field of
// metadata) as they read the object itself, apiVersion and kind aside
// (the server sends PartialObjectMetadata's); in protobuf where protobuf
// is true (U then has the generated Marshal), and in JSON. Its list
// (list, a pointer to the projected list type) must read a
// PartialObjectMetadataList of them as the objects, item by item. The
// projected decode of whole objects is checked against the full decoders
// by Protobuf and JSON; from only names the types.
func PartialObjectMetadata[U, P any, PU interface{ *U }, PP ProjectedJSON[P]](t *testing.T, from func(PU) PP, list any, protobuf bool) {
	t.Helper()
	type media struct {
		marshal   func(any) ([]byte, error)
		unmarshal func([]byte, any) error
		partials  metav1.PartialObjectMetadataList
		want      []any // each object's whole encoding, decoded as P
	}
	medias := map[string]*media{"json": {marshal: json.Marshal, unmarshal: func(b []byte, v any) error {
		if u, ok := v.(interface{ UnmarshalJSON([]byte) error }); ok {
			return u.UnmarshalJSON(b)
		}
		return kjson.UnmarshalCaseSensitivePreserveInts(b, v)
	}}}
	if protobuf {
		medias["protobuf"] = &media{
			marshal:   func(v any) ([]byte, error) { return v.(interface{ Marshal() ([]byte, error) }).Marshal() },
			unmarshal: func(b []byte, v any) error { return v.(interface{ Unmarshal([]byte) error }).Unmarshal(b) },
		}
	}
	f := Filler(6)
	for range objects {
		full := PU(new(U))
		f.Fill(full)
		m, err := meta.Accessor(full)
		if err != nil {
			t.Fatalf("%T: %v", full, err)
		}
		partial := meta.AsPartialObjectMetadata(m)
		partial.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
		for _, md := range medias {
			whole, err := md.marshal(full)
			if err != nil {
				continue // what this encoding cannot carry
			}
			want := PP(new(P))
			if md.unmarshal(whole, want) != nil {
				continue // refused whole, by the full decoder too (see JSON and Protobuf)
			}
			b, err := md.marshal(partial)
			if err != nil {
				t.Fatal(err)
			}
			got := PP(new(P))
			err = md.unmarshal(b, got)
			Agree(t, b, nil, err, func() (any, any) { return withoutKind(want), withoutKind(got) })
			md.partials.Items = append(md.partials.Items, *partial)
			md.want = append(md.want, withoutKind(want))
		}
		if t.Failed() {
			return
		}
	}
	for name, md := range medias {
		if len(md.want) < objects/2 {
			t.Errorf("%s: %d of %d random objects checked: the rest did not decode whole", name, len(md.want), objects)
		}
		md.partials.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}
		b, err := md.marshal(&md.partials)
		if err != nil {
			t.Fatal(err)
		}
		l := reflect.New(reflect.TypeOf(list).Elem())
		err = md.unmarshal(b, l.Interface())
		Agree(t, b, nil, err, func() (any, any) {
			items := l.Elem().FieldByName("Items")
			var got []any
			for i := range items.Len() {
				got = append(got, withoutKind(items.Index(i).Addr().Interface()))
			}
			return md.want, got
		})
	}
}

// withoutKind returns obj, a pointer to a projected object, with neither
// apiVersion nor kind.
func withoutKind(obj any) any {
	if o, ok := obj.(interface{ GetObjectKind() schema.ObjectKind }); ok {
		o.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	}
	return obj
}
