package runtime

import (
	"bytes"
	"context"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/syncer-gen/syncer-gen/runtime/internal/wire"
)

// metadataList reads one page of a consistent metadata-only LIST (of the
// state at exactly resourceVersion exact, when not ""), into buf
// (a page's bytes; reused from page to page, rather than a new buffer
// grown by doubling for each), and calls each with every item. A page of
// more than maxBytes is errPageTooLarge; a page for another shard than the
// one asked for is an *errShardMismatch, after its items went to each. A
// page without metadata.shardInfo tells nothing of the shard:
// kube-apiserver (1.37) drops it when it converts a list to
// PartialObjectMetadataList, so that listMetadata asks a LIST of one item
// first.
func (s *source[T]) metadataList(ctx context.Context, cont, exact string, limit int64, maxBytes int64, buf *bytes.Buffer, each func(listed)) (listPage, error) {
	opts := s.listOptions()
	opts.Limit = limit
	opts.Continue = cont
	if exact != "" && cont == "" { // a continue token holds the resourceVersion
		opts.ResourceVersion, opts.ResourceVersionMatch = exact, metav1.ResourceVersionMatchExact
	}
	stream, err := s.request().SetHeader("Accept", wire.MetadataAccept).VersionedParams(&opts, metav1.ParameterCodec).Stream(ctx)
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
	p, err := wire.ReadMetadataPage(buf.Bytes(), func(l wire.Listed) {
		each(listed{Key{Namespace: l.Namespace, Name: l.Name}, l.UID, l.ResourceVersion})
	})
	if err != nil {
		return listPage{}, errDecode{err}
	}
	if p.ShardInfo != nil {
		if err := s.noteShard(opts.ShardSelector, p.ShardInfo); err != nil {
			return listPage{}, err
		}
	}
	return newListPage(p.ResourceVersion, p.Continue, p.Items, p.Remaining)
}
