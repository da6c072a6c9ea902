package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
//
// Each object comes back as it was stored, its apiVersion and kind
// included: a protobuf object's message does not hold them (the server's
// envelope does), so they are written before it, each a length and its
// bytes. The store's objects have what the Syncer's decoding gave them
// (none for a typed or metadata Syncer: the REST client's decoder clears
// them), and an object restored from a snapshot must be what a cold sync
// would have stored, not another shape (issue 42, defect 10).
func codecFor[T Object]() snapshotfile.Codec[T] {
	elem := reflect.TypeFor[T]().Elem()
	if _, ok := any(reflect.New(elem).Interface()).(interface {
		protobufMarshaler
		wire.ProtobufType
	}); ok {
		// The strings of the last object read: the objects of a snapshot
		// share one apiVersion and one kind, not a copy each. Objects are
		// decoded on every core at once (snapshotfile.Read).
		var last atomic.Pointer[[2]string]
		return snapshotfile.Codec[T]{
			Name: "protobuf",
			Encode: func(o T, buf []byte) ([]byte, error) {
				av, k := typeMeta(o)
				buf = binary.AppendUvarint(buf[:0], uint64(len(av)))
				buf = append(buf, av...)
				buf = binary.AppendUvarint(buf, uint64(len(k)))
				buf = append(buf, k...)
				m := any(o).(protobufMarshaler)
				n, head := m.Size(), len(buf)
				buf = slices.Grow(buf, n)[:head+n]
				_, err := m.MarshalToSizedBuffer(buf[head:])
				return buf, err
			},
			Decode: func(b []byte) (T, error) {
				o := reflect.New(elem).Interface().(T)
				av, b, err := lengthPrefixed(b)
				if err != nil {
					return o, fmt.Errorf("apiVersion: %w", err)
				}
				k, b, err := lengthPrefixed(b)
				if err != nil {
					return o, fmt.Errorf("kind: %w", err)
				}
				if err := any(o).(wire.ProtobufType).Unmarshal(b); err != nil {
					return o, err
				}
				tm := last.Load()
				if tm == nil || string(av) != tm[0] || string(k) != tm[1] {
					tm = &[2]string{string(av), string(k)}
					last.Store(tm)
				}
				setTypeMeta(o, tm[0], tm[1])
				return o, nil
			},
		}
	}
	return valueCodec[T]()
}

// typeMeta returns o's apiVersion and kind as stored.
func typeMeta(o Object) (apiVersion, kind string) {
	if tm, ok := o.GetObjectKind().(*metav1.TypeMeta); ok {
		return tm.APIVersion, tm.Kind
	}
	return o.GetObjectKind().GroupVersionKind().ToAPIVersionAndKind()
}

// setTypeMeta gives o the apiVersion and kind of typeMeta.
func setTypeMeta(o Object, apiVersion, kind string) {
	if tm, ok := o.GetObjectKind().(*metav1.TypeMeta); ok {
		tm.APIVersion, tm.Kind = apiVersion, kind
		return
	}
	o.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(apiVersion, kind))
}

// lengthPrefixed reads a length, then as many bytes, from b; it returns
// them and the rest of b.
func lengthPrefixed(b []byte) (field, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, errors.New("malformed length")
	}
	return b[k : k+int(n)], b[k+int(n):], nil
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
