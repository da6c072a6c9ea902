package wire

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Bookmark is what a watch's BOOKMARK event tells: the resourceVersion to
// go on from, and whether it ends a WatchList's initial events (the
// k8s.io/initial-events-end annotation). The object of a bookmark holds
// nothing else: reading these two from its bytes, rather than decoding it
// as the watched type, keeps a bookmark whole whatever that type keeps (a
// projection that does not keep annotations would drop the end marker).
type Bookmark struct {
	ResourceVersion  string
	InitialEventsEnd bool
}

// ReadBookmark reads a bookmark's object, in protobuf (the k8s\x00 magic and
// a runtime.Unknown envelope) or JSON. ok is false when raw is neither or is
// unusual (an escape in JSON, a content encoding): the caller then decodes
// it as any object.
func ReadBookmark(raw []byte) (b Bookmark, ok bool) {
	if rest, isProto := bytes.CutPrefix(raw, protobufMagic); isProto {
		return protobufBookmark(rest)
	}
	return jsonBookmark(raw)
}

// protobufBookmark reads the ObjectMeta (= 1) of the object in a
// runtime.Unknown: its resourceVersion (= 6) and annotations (= 12, map
// entries of key = 1 and value = 2). Later fields win over earlier ones,
// as protobuf merges them.
func protobufBookmark(unknown []byte) (b Bookmark, ok bool) {
	_, raw, enc, ok := unknownFields(unknown)
	if !ok || enc || raw == nil {
		return b, false
	}
	metaOK, entriesOK := true, true
	ok = eachField(raw, func(num protowire.Number, meta []byte) {
		if num != 1 {
			return
		}
		metaOK = metaOK && eachField(meta, func(num protowire.Number, v []byte) {
			switch num {
			case 6:
				b.ResourceVersion = string(v)
			case 12:
				var key, value []byte
				entriesOK = entriesOK && eachField(v, func(num protowire.Number, kv []byte) {
					switch num {
					case 1:
						key = kv
					case 2:
						value = kv
					}
				})
				if string(key) == metav1.InitialEventsAnnotationKey {
					b.InitialEventsEnd = string(value) == "true"
				}
			}
		})
	})
	return b, ok && metaOK && entriesOK
}

// jsonBookmark reads metadata.resourceVersion and
// metadata.annotations["k8s.io/initial-events-end"] of a JSON object, with
// the scanner of json.go; anything encoding/json might read otherwise
// (escapes, a member twice, case-insensitive near misses) is not ok.
func jsonBookmark(data []byte) (b Bookmark, ok bool) {
	v, ok := members(data, [2]string{"metadata", ""})
	if !ok || v[0] == nil {
		return b, false
	}
	m, ok := members(v[0], [2]string{"resourceVersion", "annotations"})
	if !ok || m[0] != nil && !isPlainString(m[0]) {
		return b, false
	}
	if m[0] != nil {
		b.ResourceVersion = string(m[0][1 : len(m[0])-1])
	}
	if m[1] == nil || string(m[1]) == "null" {
		return b, true
	}
	a, ok := members(m[1], [2]string{metav1.InitialEventsAnnotationKey, ""})
	if !ok || a[0] != nil && !isPlainString(a[0]) {
		return b, false
	}
	b.InitialEventsEnd = plainString(a[0], "true")
	return b, true
}
