package runtime

import (
	"reflect"

	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The protobuf decoders of apimachinery copy each watched object twice
// before decoding it: the WatchEvent's RawExtension, then the Unknown
// envelope inside it. With objects of kilobytes, those copies are most of
// a sync's allocations and a good share of its CPU. fastDecoding wraps a
// NegotiatedSerializer so that for the protobuf media type (protobuf.go):
//
//   - a WatchEvent frame is decoded without copying: Object.Raw points into
//     the frame, which client-go's watch decoder, or the Syncer's stream,
//     decodes at once, before it reads the next frame into the same buffer;
//   - an object of the Syncer's own kind is unmarshalled straight from its
//     bytes into a new T.
//
// Anything else (lists, Status, other kinds, a malformed frame) goes to the
// wrapped serializers unchanged.
type fastDecoding struct {
	kruntime.NegotiatedSerializer
	gvk      *schema.GroupVersionKind // shared by every decoded object: see objectDecoder.Decode
	elemType reflect.Type             // T's struct type; nil when T has no protobuf methods
}

// newFastDecoding wraps ns. For a T without protobuf methods (a CRD type)
// only the protobuf WatchEvent frames take the fast path: an object of T's
// kind in protobuf, which only a misbehaving server or proxy sends, goes to
// the wrapped decoder, which fails it as an error, not a panic.
func newFastDecoding(ns kruntime.NegotiatedSerializer, gvk schema.GroupVersionKind, elemType reflect.Type) fastDecoding {
	if !reflect.PointerTo(elemType).Implements(reflect.TypeFor[protobufType]()) {
		elemType = nil
	}
	return fastDecoding{NegotiatedSerializer: ns, gvk: &gvk, elemType: elemType}
}

func (f fastDecoding) SupportedMediaTypes() []kruntime.SerializerInfo {
	infos := append([]kruntime.SerializerInfo(nil), f.NegotiatedSerializer.SupportedMediaTypes()...)
	for i, info := range infos {
		if info.MediaType != kruntime.ContentTypeProtobuf {
			continue
		}
		info.Serializer = objectDecoder{Serializer: info.Serializer, gvk: f.gvk,
			apiVersion: f.gvk.GroupVersion().String(), elemType: f.elemType}
		if info.StreamSerializer != nil {
			stream := *info.StreamSerializer
			stream.Serializer = watchEventDecoder{Serializer: info.StreamSerializer.Serializer}
			info.StreamSerializer = &stream
		}
		infos[i] = info
	}
	return infos
}
