package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/syncer-gen/syncer-gen/runtime/internal/wire"
)

// source makes the list and watch requests of one resource and decodes
// typed objects straight from the responses: protobuf where the type
// supports it, JSON otherwise.
type source[T Object] struct {
	client     *rest.RESTClient
	negotiator kruntime.ClientNegotiator
	protobuf   bool // protobuf is asked for (JSON too)
	res        Resource
	cfg        *config
	key        string // server and resource, for the mode memory
	server     string // the server's address and API path
	elemType   reflect.Type
	userAgent  string
	shardMode  atomic.Int32 // a ShardMode: who keeps a sharded Syncer to its shard
	shardOff   atomic.Bool  // the server answered for another shard: requests carry no shard selector
	report     func(*SyncError)
}

// codec is what decodes a resource's responses into T: the same for every
// source of a Syncer, which its lanes share (a scheme and codecs for each
// of 1,000 names was a fifth of their heap: issue 45).
type codec struct {
	gv         schema.GroupVersion
	serializer kruntime.NegotiatedSerializer
	protobuf   bool // T and its list are protobuf types
	elemType   reflect.Type
}

func newCodec[T Object](res Resource) (*codec, error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("runtime.New: type %s is not a pointer to a struct", t)
	}
	obj := reflect.New(t.Elem()).Interface().(T)
	list := res.NewList()
	gv := schema.GroupVersion{Group: res.Group, Version: res.Version}
	scheme := kruntime.NewScheme()
	scheme.AddKnownTypeWithName(gv.WithKind(res.Kind), obj)
	scheme.AddKnownTypeWithName(gv.WithKind(res.Kind+"List"), list)
	var decoding []wire.Option
	if res.MetadataOnly {
		registerPartial(scheme, obj, list)
		decoding = append(decoding, wire.WithPartialObjectMetadata())
	}
	metav1.AddToGroupVersion(scheme, gv)
	codecs := serializer.NewCodecFactory(scheme)
	_, objProto := any(obj).(wire.ProtobufType)
	_, listProto := list.(wire.ProtobufType)
	return &codec{
		gv:         gv,
		serializer: wire.NewDecoding(codecs.WithoutConversion(), gv.WithKind(res.Kind), t.Elem(), decoding...),
		protobuf:   objProto && listProto,
		elemType:   t.Elem(),
	}, nil
}

func newSource[T Object](restCfg *rest.Config, res Resource, cfg *config, cd *codec) (*source[T], error) {
	gv := cd.gv
	c := rest.CopyConfig(restCfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if res.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = cd.serializer
	if cd.protobuf {
		c.ContentType = kruntime.ContentTypeProtobuf
		c.AcceptContentTypes = kruntime.ContentTypeProtobuf + "," + kruntime.ContentTypeJSON
	} else {
		c.ContentType = kruntime.ContentTypeJSON
		c.AcceptContentTypes = kruntime.ContentTypeJSON
	}
	if c.UserAgent == "" {
		c.UserAgent = "syncer-gen/" + res.String()
	}
	var client *rest.RESTClient
	var err error
	if cfg.httpClient != nil {
		client, err = rest.RESTClientForConfigAndClient(c, cfg.httpClient)
	} else {
		client, err = rest.RESTClientFor(c)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime.New: %s: %w", res, err)
	}
	src := &source[T]{
		server:     restCfg.Host + restCfg.APIPath,
		client:     client,
		negotiator: kruntime.NewClientNegotiator(c.NegotiatedSerializer, gv),
		protobuf:   cd.protobuf,
		res:        res,
		cfg:        cfg,
		key:        restCfg.Host + restCfg.APIPath + "|" + res.String(),
		elemType:   cd.elemType,
		userAgent:  c.UserAgent,
	}
	if cfg.shard != nil {
		src.shardMode.Store(int32(ShardUnknown))
		if m, ok := shardModes.Load(src.key); ok { // learnt by another Syncer of this server and resource
			src.shardMode.Store(int32(m.(ShardMode)))
		}
	}
	return src, nil
}

func (s *source[T]) request() *rest.Request { return s.requestIn(s.cfg.namespace) }

// requestIn starts a GET of the resource in namespace ns (all when "").
// It names the Syncer in its User-Agent: the transport of a client shared
// with a program's other clients (WithHTTPClient) would otherwise send the
// program's, or Go's, and the server's audit log and priority and
// fairness would not tell the Syncer's requests apart.
func (s *source[T]) requestIn(ns string) *rest.Request {
	r := s.client.Get().NamespaceIfScoped(ns, s.res.Namespaced).Resource(s.res.Resource).SetHeader("User-Agent", s.userAgent)
	if !s.cfg.compression {
		// Set by hand, the header also stops Go's transport from asking
		// for gzip on its own (see WithCompression).
		r.SetHeader("Accept-Encoding", "identity")
	}
	return r
}

// listOptions returns the Syncer's selection: every request of its
// resource carries it, the shard selector included unless the server
// answered for another shard (see noteShard).
func (s *source[T]) listOptions() metav1.ListOptions {
	opts := metav1.ListOptions{LabelSelector: s.cfg.labelSelector, FieldSelector: s.cfg.fieldSelector}
	if !s.shardOff.Load() {
		opts.ShardSelector = shardString(s.cfg.shard)
	}
	return opts
}

// watchList opens a WatchList stream: every object as ADDED, then the
// initial-events-end bookmark, then live events.
func (s *source[T]) watchList(ctx context.Context) (*stream, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.SendInitialEvents = new(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	return s.open(ctx, opts)
}

// watch opens a plain watch from rv.
func (s *source[T]) watch(ctx context.Context, rv string) (*stream, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.ResourceVersion = rv
	return s.open(ctx, opts)
}

// open sends a watch request through the REST client (its rate limiter,
// Retry-After handling on 429 and 5xx, warning handler and transport) and
// returns its events as a stream that the caller decodes on its own
// goroutine. An error answer is the server's Status, as a *StatusError.
func (s *source[T]) open(ctx context.Context, opts metav1.ListOptions) (*stream, error) {
	return s.openFor(ctx, opts, s.watchTimeout())
}

// openFor is open with the timeout given.
func (s *source[T]) openFor(ctx context.Context, opts metav1.ListOptions, timeout time.Duration) (*stream, error) {
	opts.TimeoutSeconds = new(int64(timeout / time.Second))
	ctx, cancel := context.WithCancel(ctx)
	req, asked := s.ask(s.request(), false)
	body, err := req.VersionedParams(&opts, metav1.ParameterCodec).Stream(ctx)
	if s.refusedMetadata(asked, err) {
		body, err = s.request().VersionedParams(&opts, metav1.ParameterCodec).Stream(ctx)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	// Reading through a buffer takes whatever the connection holds in one
	// call rather than a frame header, then a frame: the HTTP/2 transport
	// sends a WINDOW_UPDATE (a write) for every 4 KiB read in small calls,
	// but once per call for larger ones. A gzip-compressed response (1.37's
	// WatchList) is inflated by the transport, whose gzip reader reads the
	// body in 4 KiB calls whatever this buffer: a WINDOW_UPDATE per 4 KiB of
	// compressed bytes, a cost lost in that of inflating (measured: reading
	// the compressed body in 64 KiB calls saved no CPU). A name's watch
	// (WithNames) carries one object's events: a buffer of 64 KiB for each
	// of 1,000 names was two thirds of their heap (issue 45), and a frame
	// larger than the buffer is read straight into the decoder's.
	size := 64 << 10
	if s.cfg.oneName {
		size = 4 << 10
	}
	buf := bufio.NewReaderSize(body, size)
	mediaType, err := s.sniff(buf)
	if err != nil {
		body.Close()
		cancel()
		return nil, err
	}
	objects, events, framer, err := s.negotiator.StreamDecoder(mediaType, nil)
	if err != nil {
		body.Close()
		cancel()
		return nil, errDecode{fmt.Errorf("watch response as %s: %w", mediaType, err)}
	}
	fr := wire.NewFrames(framer.NewFrameReader(readCloser{buf, body}), events, mediaType == kruntime.ContentTypeJSON)
	return &stream{frames: fr, objects: objects, newObject: s.newObject, body: body, cancel: cancel, timeout: timeout}, nil
}

// newObject returns an empty T, as a runtime.Object.
func (s *source[T]) newObject() kruntime.Object {
	return reflect.New(s.elemType).Interface().(kruntime.Object)
}

// sniff tells from the first byte of a watch response which of the media
// types the Syncer accepts it is in (Request.Stream does not hand over the
// response's headers): a JSON stream starts with an object, a protobuf
// stream with a 4-byte big-endian frame length, whose first byte is 0 for
// every frame under 16 MiB and never '{' (2 GiB). A response that ends
// before its first byte is a stream that closed at once.
func (s *source[T]) sniff(buf *bufio.Reader) (string, error) {
	b, err := buf.Peek(1)
	if err != nil {
		return "", err
	}
	switch {
	case b[0] == '{' || b[0] == ' ' || b[0] == '\n' || b[0] == '\r' || b[0] == '\t':
		return kruntime.ContentTypeJSON, nil
	case s.protobuf:
		return kruntime.ContentTypeProtobuf, nil
	}
	return "", errDecode{fmt.Errorf("watch response starting with byte %#x is not JSON, the only media type asked for", b[0])}
}

// count returns the number of objects the server holds for the Syncer's
// selection, by a LIST of one item (remainingItemCount); ok is false where
// the server does not say (selectors, old servers) or the request failed.
func (s *source[T]) count(ctx context.Context) (n int64, ok bool) {
	// A sharded Syncer counts in whole objects, whose list tells the shard (metadataonly.go).
	page, opts, err := s.listOne(ctx, s.cfg.shard == nil)
	if err != nil {
		return 0, false
	}
	lm, err := meta.ListAccessor(page)
	if err != nil || s.noteShard(opts.ShardSelector, shardInfo(lm)) != nil { // another shard's count
		return 0, false
	}
	items := int64(meta.LenList(page))
	if lm.GetContinue() == "" {
		return items, true
	}
	if r := lm.GetRemainingItemCount(); r != nil {
		return items + *r, true
	}
	return 0, false
}

// listOne LISTs one item of the Syncer's selection, as metadata where
// metadata is true and the server serves it.
func (s *source[T]) listOne(ctx context.Context, metadata bool) (kruntime.Object, metav1.ListOptions, error) {
	opts := s.listOptions()
	opts.Limit = 1
	page := s.res.NewList()
	req, asked := s.request(), false
	if metadata {
		req, asked = s.ask(req, true)
	}
	err := req.VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(page)
	if s.refusedMetadata(asked, err) {
		page = s.res.NewList()
		err = s.request().VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(page)
	}
	return page, opts, err
}

// listPage is what a page of a LIST tells besides its items.
type listPage struct {
	rv, next  string
	items     int   // the items of this page
	remaining int64 // the items after this page, -1 when the server does not say
}

// newListPage checks what a page tells: every page of a LIST has the
// resourceVersion it was read at, which the Syncer goes on from.
func newListPage(rv, next string, items int, remaining *int64) (listPage, error) {
	if rv == "" {
		return listPage{}, errDecode{errors.New("a LIST page without a resourceVersion")}
	}
	p := listPage{rv: rv, next: next, items: items, remaining: -1}
	switch {
	case next == "":
		p.remaining = 0
	case remaining != nil:
		p.remaining = *remaining
	}
	return p, nil
}

// list reads one page of a consistent LIST (limit 0: the whole LIST) and
// calls each for every item, bad for every item that cannot be decoded.
func (s *source[T]) list(ctx context.Context, cont string, limit int64, each func(T), bad func(*ObjectDecodeError)) (listPage, error) {
	opts := s.listOptions()
	opts.Limit = limit
	opts.Continue = cont
	if cont == "" && s.res.MetadataOnly && s.cfg.shard != nil && ShardMode(s.shardMode.Load()) == ShardUnknown {
		s.count(ctx) // learns the shard (metadataonly.go)
	}
	return s.listWith(ctx, s.request, opts, each, bad)
}

// listWith reads the LIST of the requests req makes and opts, as list does.
func (s *source[T]) listWith(ctx context.Context, req func() *rest.Request, opts metav1.ListOptions, each func(T), bad func(*ObjectDecodeError)) (listPage, error) {
	page := s.res.NewList()
	r, asked := s.ask(req(), true)
	res := r.VersionedParams(&opts, metav1.ParameterCodec).Do(ctx)
	if s.refusedMetadata(asked, res.Error()) {
		asked = false
		res = req().VersionedParams(&opts, metav1.ParameterCodec).Do(ctx)
	}
	if err := res.Into(page); err != nil {
		if body, rerr := res.Raw(); rerr == nil { // the answer came: it did not decode
			return s.listItems(body, opts.ShardSelector, err, each, bad)
		}
		return listPage{}, err
	}
	lm, err := meta.ListAccessor(page)
	if err != nil {
		return listPage{}, errDecode{err}
	}
	// A PartialObjectMetadataList tells nothing of the shard (metadataonly.go).
	if info := shardInfo(lm); info != nil || !asked {
		if err := s.noteShard(opts.ShardSelector, info); err != nil {
			return listPage{}, err
		}
	}
	// Copy each item out of the page so that the page's backing array is
	// freed once the page is done, not held by the last surviving item.
	err = meta.EachListItem(page, func(o kruntime.Object) error {
		item := reflect.New(s.elemType)
		item.Elem().Set(reflect.ValueOf(o).Elem())
		obj := item.Interface().(T)
		if asked {
			s.ownKind(obj)
		}
		each(obj)
		return nil
	})
	if err != nil {
		return listPage{}, errDecode{err}
	}
	return newListPage(lm.GetResourceVersion(), lm.GetContinue(), meta.LenList(page), lm.GetRemainingItemCount())
}

// fetch reads the object of key k, in a state not older than resourceVersion
// rv, when it is in the Syncer's selection; a NotFound error when it is
// not there, or not selected. A GET by name ignores selectors: with a
// label, field or shard selector, it is a LIST of that name with the
// selectors, which the server reads as one key.
func (s *source[T]) fetch(ctx context.Context, k Key, rv string) (T, error) {
	obj := reflect.New(s.elemType).Interface().(T)
	req := func() *rest.Request { return s.requestIn(k.Namespace) }
	if s.cfg.labelSelector == "" && s.cfg.fieldSelector == "" && s.cfg.shard == nil {
		get := func(r *rest.Request) rest.Result {
			return r.Name(k.Name).VersionedParams(&metav1.GetOptions{ResourceVersion: rv}, metav1.ParameterCodec).Do(ctx)
		}
		r, asked := s.ask(req(), false)
		res := get(r)
		if s.refusedMetadata(asked, res.Error()) {
			res = get(req())
		}
		err := res.Into(obj)
		if body, rerr := res.Raw(); err != nil && rerr == nil {
			if bad := undecodable(body, err); bad != nil {
				return obj, bad
			}
		}
		return obj, err
	}
	opts := s.listOptions()
	opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", k.Name).String()
	if s.cfg.fieldSelector != "" {
		opts.FieldSelector += "," + s.cfg.fieldSelector
	}
	opts.ResourceVersion = rv
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	var found []T
	var bad *ObjectDecodeError
	_, err := s.listWith(ctx, req, opts, func(o T) { found = append(found, o) }, func(b *ObjectDecodeError) { bad = b })
	switch {
	case err != nil:
		return obj, err
	case bad != nil && len(found) == 0 && bad.Name == k.Name && bad.Namespace == k.Namespace:
		return obj, bad
	case bad != nil || len(found) > 1 || len(found) == 1 && KeyOf(found[0]) != k:
		return obj, errDecode{fmt.Errorf("a LIST of the one object %s answered with other objects", k)}
	case len(found) == 0:
		return obj, apierrors.NewNotFound(schema.GroupResource{Group: s.res.Group, Resource: s.res.Resource}, k.Name)
	}
	return found[0], nil
}

// watchTimeout returns the configured watch timeout, jittered up to twice
// it so that many clients do not reconnect at once, in whole seconds.
func (s *source[T]) watchTimeout() time.Duration {
	d := s.cfg.watchTimeout + time.Duration(rand.Int64N(int64(s.cfg.watchTimeout)+1))
	return d.Truncate(time.Second)
}

// readCloser reads from a buffer in front of a body and closes the body.
type readCloser struct {
	io.Reader
	io.Closer
}
