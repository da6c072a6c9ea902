package runtime

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/syncer-gen/syncer-gen/runtime/internal/snapshotfile"
	"github.com/syncer-gen/syncer-gen/runtime/internal/valuecodec"
	"github.com/syncer-gen/syncer-gen/runtime/internal/wire"
)

// protobufMarshaler is what the generated protobuf code of API types has.
type protobufMarshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// codecFor returns protobuf for types that have its generated methods (the
// built-in APIs, which the server sends in protobuf too) and valuecodec for
// the others (CRD types).
func codecFor[T Object](res Resource) snapshotfile.Codec[T] {
	elem := reflect.TypeFor[T]().Elem()
	if _, ok := any(reflect.New(elem).Interface()).(interface {
		protobufMarshaler
		wire.ProtobufType
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
				if err := any(o).(wire.ProtobufType).Unmarshal(b); err != nil {
					return o, err
				}
				o.GetObjectKind().SetGroupVersionKind(gvk) // as the server's decoder does
				return o, nil
			},
		}
	}
	return valueCodec[T]()
}

// valueCodec writes objects with valuecodec: what the server's bytes
// decoded to comes back reflect.DeepEqual, where JSON would give back nil
// for empty lists and maps and Quantities in another format.
func valueCodec[T Object]() snapshotfile.Codec[T] {
	elem := reflect.TypeFor[T]().Elem()
	return snapshotfile.Codec[T]{
		Name:   "value",
		Encode: func(o T, buf []byte) ([]byte, error) { return valuecodec.Append(buf[:0], o) },
		Decode: func(b []byte) (T, error) {
			o := reflect.New(elem).Interface().(T)
			return o, valuecodec.Decode(b, o)
		},
	}
}
