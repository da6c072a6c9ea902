package runtime

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/syncer-gen/syncer-gen/runtime/internal/snapshotfile"
)

// protobufMarshaler is what the generated protobuf code of API types has.
type protobufMarshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// codecFor returns protobuf for types that have its generated methods (the
// built-in APIs) and JSON for the others (CRD types).
func codecFor[T Object](res Resource) snapshotfile.Codec[T] {
	elem := reflect.TypeFor[T]().Elem()
	if _, ok := any(reflect.New(elem).Interface()).(interface {
		protobufMarshaler
		protobufType
	}); ok {
		gvk := schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
		return snapshotfile.Codec[T]{
			Name: "protobuf",
			Encode: func(o T, buf []byte) ([]byte, error) {
				m := any(o).(protobufMarshaler)
				n := m.Size()
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				buf = buf[:n]
				_, err := m.MarshalToSizedBuffer(buf)
				return buf, err
			},
			Decode: func(b []byte) (T, error) {
				o := reflect.New(elem).Interface().(T)
				if err := any(o).(protobufType).Unmarshal(b); err != nil {
					return o, err
				}
				o.GetObjectKind().SetGroupVersionKind(gvk) // as the server's decoder does
				return o, nil
			},
		}
	}
	return jsonCodec[T]()
}

func jsonCodec[T Object]() snapshotfile.Codec[T] {
	elem := reflect.TypeFor[T]().Elem()
	return snapshotfile.Codec[T]{
		Name:   "json",
		Encode: func(o T, _ []byte) ([]byte, error) { return json.Marshal(o) },
		Decode: func(b []byte) (T, error) {
			o := reflect.New(elem).Interface().(T)
			return o, json.Unmarshal(b, o)
		},
	}
}
