package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// A warm start's metadata-only LIST needs of each object only its
// namespace, name, UID and resourceVersion. Decoded into
// PartialObjectMetadata, each item would also bring its labels,
// annotations, owner references and managedFields: garbage of about 1.6 KB
// per object for 20,000 ConfigMaps, more than the objects' own in-memory
// size, which raised the warm start's peak heap above a cold start's. The
// protobuf answer is read in place instead, keeping the four strings; a
// JSON answer (a server without protobuf for it) is decoded as usual.

// metadataAccept asks for a PartialObjectMetadataList, in protobuf first.
const metadataAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
	"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"

// metadataList reads one page of a consistent metadata-only LIST, into buf
// (a page's bytes; reused from page to page, rather than a new buffer
// grown by doubling for each), and calls each with every item. A page of
// more than maxBytes is errPageTooLarge.
func (s *source[T]) metadataList(ctx context.Context, cont string, limit int64, maxBytes int64, buf *bytes.Buffer, each func(listed)) (listPage, error) {
	opts := s.listOptions()
	opts.Limit = limit
	opts.Continue = cont
	stream, err := s.request().SetHeader("Accept", metadataAccept).VersionedParams(&opts, metav1.ParameterCodec).Stream(ctx)
	if err != nil {
		return listPage{}, err
	}
	defer stream.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(stream, maxBytes+1)); err != nil {
		return listPage{}, err
	}
	if int64(buf.Len()) > maxBytes {
		return listPage{}, errPageTooLarge
	}
	page, err := decodeMetadataPage(buf.Bytes(), each)
	if err == nil && s.cfg.shard != nil {
		s.setShardMode(page.sharded)
	}
	return page, err
}

// decodeMetadataPage reads a page of a metadata-only LIST, in protobuf or
// JSON, calling each with every item.
func decodeMetadataPage(body []byte, each func(listed)) (listPage, error) {
	if msg, ok := bytes.CutPrefix(body, protobufMagic); ok {
		return readMetadataList(msg, each)
	}
	var l metav1.PartialObjectMetadataList
	if err := json.Unmarshal(body, &l); err != nil {
		return listPage{}, errDecode{fmt.Errorf("metadata-only LIST: %w", err)}
	}
	if l.Kind != "PartialObjectMetadataList" {
		return listPage{}, errDecode{fmt.Errorf("%w: a metadata-only LIST answered with kind %q", errNoMetadataList, l.Kind)}
	}
	for i := range l.Items {
		m := &l.Items[i]
		each(listed{Key{Namespace: m.Namespace, Name: m.Name}, m.UID, m.ResourceVersion})
	}
	return newListPage(l.ResourceVersion, l.Continue, len(l.Items), l.RemainingItemCount, l.ShardInfo)
}

// readMetadataList reads a PartialObjectMetadataList in a runtime.Unknown
// envelope (after the protobuf magic): ListMeta = 1 (resourceVersion = 2,
// continue = 3, remainingItemCount = 4, shardInfo = 5), items = 2, each an ObjectMeta = 1
// (name = 1, namespace = 3, uid = 5, resourceVersion = 6).
func readMetadataList(unknown []byte, each func(listed)) (listPage, error) {
	malformed := func(what string) (listPage, error) {
		return listPage{}, errDecode{fmt.Errorf("metadata-only LIST: malformed protobuf %s", what)}
	}
	typeMeta, raw, enc, ok := unknownFields(unknown)
	if !ok || enc {
		return malformed("envelope")
	}
	if _, kind, ok := typeMetaFields(typeMeta); !ok || string(kind) != "PartialObjectMetadataList" {
		return listPage{}, errDecode{fmt.Errorf("%w: a metadata-only LIST answered with kind %q", errNoMetadataList, kind)}
	}
	var rv, next string
	var remaining *int64
	var shard *metav1.ShardInfo
	var items, listMeta [][]byte
	if !eachField(raw, func(num protowire.Number, b []byte) {
		switch num {
		case 1:
			listMeta = append(listMeta, b)
		case 2:
			items = append(items, b)
		}
	}) {
		return malformed("list")
	}
	for _, lm := range listMeta { // protobuf merges repeated messages
		ok := eachValue(lm, func(num protowire.Number, _ protowire.Type, b []byte, v uint64) {
			switch num {
			case 2:
				rv = string(b)
			case 3:
				next = string(b)
			case 4:
				remaining = new(int64(v))
			case 5:
				shard = &metav1.ShardInfo{Selector: shardSelectorField(b)}
			}
		})
		if !ok {
			return malformed("list metadata")
		}
	}
	for _, item := range items {
		l, ok := readListed(item)
		if !ok {
			return malformed("item")
		}
		each(l)
	}
	return newListPage(rv, next, len(items), remaining, shard)
}

// shardSelectorField reads the selector (= 1) of a ShardInfo.
func shardSelectorField(info []byte) (sel string) {
	eachValue(info, func(num protowire.Number, _ protowire.Type, b []byte, _ uint64) {
		if num == 1 {
			sel = string(b)
		}
	})
	return sel
}

// readListed reads a PartialObjectMetadata item. Every occurrence of its
// ObjectMeta counts, later fields over earlier ones, as protobuf merges.
func readListed(item []byte) (l listed, ok bool) {
	metaOK := true
	ok = eachField(item, func(num protowire.Number, meta []byte) {
		if num != 1 {
			return
		}
		metaOK = metaOK && eachField(meta, func(num protowire.Number, b []byte) {
			switch num {
			case 1:
				l.key.Name = string(b)
			case 3:
				l.key.Namespace = string(b)
			case 5:
				l.uid = types.UID(b)
			case 6:
				l.rv = string(b)
			}
		})
	})
	return l, ok && metaOK
}

// eachValue calls f with each field of msg: length-delimited ones as b
// (sub-slices, not copies), varints as v; it skips the others and returns
// false on malformed input.
func eachValue(msg []byte, f func(num protowire.Number, typ protowire.Type, b []byte, v uint64)) bool {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return false
		}
		msg = msg[n:]
		var m int
		switch typ {
		case protowire.BytesType:
			var b []byte
			b, m = protowire.ConsumeBytes(msg)
			if m >= 0 {
				f(num, typ, b, 0)
			}
		case protowire.VarintType:
			var v uint64
			v, m = protowire.ConsumeVarint(msg)
			if m >= 0 {
				f(num, typ, nil, v)
			}
		default:
			m = protowire.ConsumeFieldValue(num, typ, msg)
		}
		if m < 0 {
			return false
		}
		msg = msg[m:]
	}
	return true
}
