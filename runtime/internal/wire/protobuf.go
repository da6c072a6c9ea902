package wire

import (
	"bytes"
	"reflect"

	"google.golang.org/protobuf/encoding/protowire"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The protobuf decoders of fastDecoding (decoding.go).

// protobufMagic starts every object the protobuf serializer writes.
var protobufMagic = []byte("k8s\x00")

// ProtobufType is what the protobuf serializer needs of a type: the
// generated methods of the built-in APIs.
type ProtobufType interface {
	Reset()
	Unmarshal([]byte) error
}

// objectDecoder decodes the envelope of an object of kind gvk itself.
type objectDecoder struct {
	kruntime.Serializer
	gvk        *schema.GroupVersionKind
	apiVersion string
	elemType   reflect.Type
	partial    bool // PartialObjectMetadata counts as the decoder's kind
}

func (d objectDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error) {
	if into == nil && d.elemType != nil && bytes.HasPrefix(data, protobufMagic) {
		if raw, ok := d.ownKind(data[len(protobufMagic):]); ok {
			obj := reflect.New(d.elemType).Interface().(ProtobufType)
			if err := obj.Unmarshal(raw); err == nil {
				o := obj.(kruntime.Object)
				// As the protobuf serializer does, with the apiVersion
				// string made once rather than per object ("group/version").
				if tm, ok := o.GetObjectKind().(*metav1.TypeMeta); ok {
					tm.APIVersion, tm.Kind = d.apiVersion, d.gvk.Kind
				} else {
					o.GetObjectKind().SetGroupVersionKind(*d.gvk)
				}
				// The kind returned is the decoder's own, not a copy per
				// object (48 bytes each): its callers, apimachinery's
				// decoders, only read it.
				return o, d.gvk, nil
			}
		}
	}
	return d.Serializer.Decode(data, defaults, into)
}

// ownKind returns the object bytes of a runtime.Unknown envelope when it
// holds a plain protobuf object of the decoder's kind (or, for partial, a
// PartialObjectMetadata).
func (d objectDecoder) ownKind(unknown []byte) ([]byte, bool) {
	typeMeta, raw, enc, ok := unknownFields(unknown)
	if !ok || enc {
		return nil, false
	}
	apiVersion, kind, ok := typeMetaFields(typeMeta)
	switch {
	case !ok:
		return nil, false
	case string(kind) == d.gvk.Kind && string(apiVersion) == d.apiVersion:
		return raw, true
	}
	return raw, d.partial && string(kind) == partialKind && string(apiVersion) == partialAPIVersion
}

// watchEventDecoder decodes a metav1.WatchEvent frame without copying.
type watchEventDecoder struct {
	kruntime.Serializer
}

func (d watchEventDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into kruntime.Object) (kruntime.Object, *schema.GroupVersionKind, error) {
	ev, ok := into.(*metav1.WatchEvent)
	if !ok {
		return d.Serializer.Decode(data, defaults, into)
	}
	typ, object, ok := watchEventFields(data)
	if !ok {
		return d.Serializer.Decode(data, defaults, into)
	}
	ev.Type = internEventType(typ)
	ev.Object = kruntime.RawExtension{Raw: object}
	return ev, nil, nil
}

// internEventType returns the event types as constants, to not allocate.
func internEventType(b []byte) string {
	switch string(b) {
	case "ADDED":
		return "ADDED"
	case "MODIFIED":
		return "MODIFIED"
	case "DELETED":
		return "DELETED"
	case "BOOKMARK":
		return "BOOKMARK"
	case "ERROR":
		return "ERROR"
	}
	return string(b)
}

// watchEventFields reads a WatchEvent: type = 1, object = 2 (a
// RawExtension whose raw = 1).
func watchEventFields(msg []byte) (typ, object []byte, ok bool) {
	var ext []byte
	ok = eachField(msg, func(num protowire.Number, b []byte) {
		switch num {
		case 1:
			typ = b
		case 2:
			ext = b
		}
	})
	if !ok || typ == nil {
		return nil, nil, false
	}
	ok = eachField(ext, func(num protowire.Number, b []byte) {
		if num == 1 {
			object = b
		}
	})
	return typ, object, ok
}

// unknownFields reads a runtime.Unknown: typeMeta = 1, raw = 2,
// contentEncoding = 3, contentType = 4. enc tells whether the object is
// content-encoded (compressed), which the fast path leaves alone.
func unknownFields(msg []byte) (typeMeta, raw []byte, enc, ok bool) {
	ok = eachField(msg, func(num protowire.Number, b []byte) {
		switch num {
		case 1:
			typeMeta = b
		case 2:
			raw = b
		case 3:
			enc = len(b) > 0
		case 4:
			if len(b) > 0 && string(b) != kruntime.ContentTypeProtobuf {
				enc = true
			}
		}
	})
	return typeMeta, raw, enc, ok
}

// typeMetaFields reads a runtime.TypeMeta: apiVersion = 1, kind = 2.
func typeMetaFields(msg []byte) (apiVersion, kind []byte, ok bool) {
	ok = eachField(msg, func(num protowire.Number, b []byte) {
		switch num {
		case 1:
			apiVersion = b
		case 2:
			kind = b
		}
	})
	return apiVersion, kind, ok
}

// eachField calls f with each length-delimited field of msg (sub-slices,
// not copies) and skips the others. It returns false on malformed input.
func eachField(msg []byte, f func(num protowire.Number, b []byte)) bool {
	return eachValue(msg, func(num protowire.Number, typ protowire.Type, b []byte, _ uint64) {
		if typ == protowire.BytesType {
			f(num, b)
		}
	})
}
