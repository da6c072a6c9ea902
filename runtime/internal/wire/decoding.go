package wire

import (
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// apimachinery's decoders copy each watched object before decoding it (the
// WatchEvent's RawExtension, and for protobuf the Unknown envelope inside
// it too), and its JSON decoder reads every object twice: once with
// encoding/json to find its apiVersion and kind, then to unmarshal it. With
// objects of kilobytes, those copies are a large share of a sync's
// allocations and CPU, and their garbage raises the heap's peak during a
// sync. fastDecoding wraps a NegotiatedSerializer so that, for the protobuf
// (protobuf.go) and JSON (json.go) media types:
//
//   - a WatchEvent frame is decoded without copying: Object.Raw points into
//     the frame, which client-go's watch decoder, or the Syncer's stream,
//     decodes at once, before it reads the next frame into the same buffer;
//   - an object of the Syncer's own kind is unmarshalled straight from its
//     bytes into a new T.
//
// Anything else (lists, Status, other kinds, a malformed or unusual frame)
// goes to the wrapped serializers unchanged.
type fastDecoding struct {
	kruntime.NegotiatedSerializer
	gvk       *schema.GroupVersionKind // shared by every decoded object: see objectDecoder.Decode
	eventGVK  *schema.GroupVersionKind // the kind returned for a JSON WatchEvent: see jsonWatchEventDecoder
	elemType  reflect.Type             // T's struct type
	protoType reflect.Type             // elemType, or nil when T has no protobuf methods
	// partial: objects may come as PartialObjectMetadata (see
	// WithPartialObjectMetadata).
	partial bool
	// unstructured: T is an unstructured.Unstructured, whose apiVersion
	// and kind are kept (see DecoderToVersion).
	unstructured bool
}

// Option changes what NewDecoding's serializers read.
type Option func(*fastDecoding)

// WithPartialObjectMetadata makes the decoders take an object of kind
// PartialObjectMetadata (meta.k8s.io/v1), which a server sends for a
// request that asks for it, as one of the decoder's own kind: it is
// decoded into elemType, whose decoders read the metadata of either (field
// 1, "metadata", in both). The wrapped serializer's scheme must know
// elemType under that kind too, for what goes to it.
func WithPartialObjectMetadata() Option { return func(f *fastDecoding) { f.partial = true } }

// partialAPIVersion and partialKind name what a server sends for a
// request that asks for PartialObjectMetadata.
const (
	partialAPIVersion = "meta.k8s.io/v1"
	partialKind       = "PartialObjectMetadata"
)

// NewDecoding wraps ns. For a T without protobuf methods (a CRD type),
// of protobuf only the WatchEvent frames take the fast path: an object of
// T's kind in protobuf, which only a misbehaving server or proxy sends,
// goes to the wrapped decoder, which fails it as an error, not a panic.
func NewDecoding(ns kruntime.NegotiatedSerializer, gvk schema.GroupVersionKind, elemType reflect.Type, opts ...Option) kruntime.NegotiatedSerializer {
	f := fastDecoding{NegotiatedSerializer: ns, gvk: &gvk, elemType: elemType,
		eventGVK:     new(gvk.GroupVersion().WithKind("WatchEvent")),
		unstructured: reflect.PointerTo(elemType).Implements(reflect.TypeFor[kruntime.Unstructured]())}
	if reflect.PointerTo(elemType).Implements(reflect.TypeFor[ProtobufType]()) {
		f.protoType = elemType
	}
	for _, o := range opts {
		o(&f)
	}
	return f
}

// DecoderToVersion returns the decoder of objects the REST client uses.
// The wrapped serializer's (apimachinery's WithoutConversion) clears the
// apiVersion and kind of every object it decodes; an Unstructured keeps
// them, as client-go's dynamic client keeps them: they are part of its
// data, which a program that chose the resource at run time reads.
func (f fastDecoding) DecoderToVersion(d kruntime.Decoder, gv kruntime.GroupVersioner) kruntime.Decoder {
	if f.unstructured {
		return d
	}
	return f.NegotiatedSerializer.DecoderToVersion(d, gv)
}

func (f fastDecoding) SupportedMediaTypes() []kruntime.SerializerInfo {
	infos := append([]kruntime.SerializerInfo(nil), f.NegotiatedSerializer.SupportedMediaTypes()...)
	// The apiVersion set or compared is made once, not per object.
	apiVersion := f.gvk.GroupVersion().String()
	for i, info := range infos {
		var events kruntime.Serializer
		switch info.MediaType {
		case kruntime.ContentTypeProtobuf:
			info.Serializer = objectDecoder{Serializer: info.Serializer, gvk: f.gvk,
				apiVersion: apiVersion, elemType: f.protoType, partial: f.partial}
			if info.StreamSerializer != nil {
				events = watchEventDecoder{Serializer: info.StreamSerializer.Serializer}
			}
		case kruntime.ContentTypeJSON:
			info.Serializer = jsonObjectDecoder{Serializer: info.Serializer, gvk: f.gvk,
				apiVersion: apiVersion, elemType: f.elemType, partial: f.partial,
				ownJSON:      reflect.PointerTo(f.elemType).Implements(reflect.TypeFor[json.Unmarshaler]()),
				unstructured: f.elemType == reflect.TypeFor[unstructured.Unstructured]()}
			if info.StreamSerializer != nil {
				events = jsonWatchEventDecoder{Serializer: info.StreamSerializer.Serializer, gvk: f.eventGVK}
			}
		default:
			continue
		}
		if events != nil {
			stream := *info.StreamSerializer
			stream.Serializer = events
			info.StreamSerializer = &stream
		}
		infos[i] = info
	}
	return infos
}
