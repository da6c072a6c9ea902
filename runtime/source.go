package runtime

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/rest"
)

// source makes the list and watch requests of one resource and decodes
// typed objects straight from the responses: protobuf where the type
// supports it, JSON otherwise.
type source[T Object] struct {
	client     *rest.RESTClient
	negotiator kruntime.ClientNegotiator
	accept     string
	res        Resource
	cfg        *config
	key        string // server and resource, for the mode memory
	elemType   reflect.Type
}

// protobufType is what the protobuf serializer needs of a type.
type protobufType interface {
	Reset()
	Unmarshal([]byte) error
}

func newSource[T Object](restCfg *rest.Config, res Resource, cfg *config) (*source[T], error) {
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
	metav1.AddToGroupVersion(scheme, gv)
	codecs := serializer.NewCodecFactory(scheme)

	c := rest.CopyConfig(restCfg)
	c.GroupVersion = &gv
	c.APIPath = "/apis"
	if res.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = newFastProtobuf(codecs.WithoutConversion(), gv.WithKind(res.Kind), t.Elem())
	_, objProto := any(obj).(protobufType)
	_, listProto := list.(protobufType)
	if objProto && listProto {
		c.ContentType = kruntime.ContentTypeProtobuf
		c.AcceptContentTypes = kruntime.ContentTypeProtobuf + "," + kruntime.ContentTypeJSON
	} else {
		c.ContentType = kruntime.ContentTypeJSON
		c.AcceptContentTypes = kruntime.ContentTypeJSON
	}
	if c.UserAgent == "" {
		c.UserAgent = "syncer-gen/" + res.String()
	}
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("runtime.New: %s: %w", res, err)
	}
	return &source[T]{
		client:     client,
		negotiator: kruntime.NewClientNegotiator(c.NegotiatedSerializer, gv),
		accept:     c.AcceptContentTypes,
		res:        res,
		cfg:        cfg,
		key:        restCfg.Host + restCfg.APIPath + "|" + res.String(),
		elemType:   t.Elem(),
	}, nil
}

func (s *source[T]) request() *rest.Request {
	return s.client.Get().NamespaceIfScoped(s.cfg.namespace, s.res.Namespaced).Resource(s.res.Resource)
}

func (s *source[T]) listOptions() metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: s.cfg.labelSelector, FieldSelector: s.cfg.fieldSelector}
}

// watchList opens a WatchList stream: every object as ADDED, then the
// initial-events-end bookmark, then live events.
func (s *source[T]) watchList(ctx context.Context) (*stream, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.SendInitialEvents = new(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.TimeoutSeconds = s.watchTimeoutSeconds()
	return s.open(ctx, opts)
}

// watch opens a plain watch from rv.
func (s *source[T]) watch(ctx context.Context, rv string) (*stream, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.ResourceVersion = rv
	opts.TimeoutSeconds = s.watchTimeoutSeconds()
	return s.open(ctx, opts)
}

// open sends a watch request with the client's transport (auth, TLS,
// user agent) and returns its events as a stream that the caller decodes
// on its own goroutine. An error answer becomes the same *StatusError that
// client-go's Request.Watch returns.
func (s *source[T]) open(ctx context.Context, opts metav1.ListOptions) (*stream, error) {
	u := s.request().VersionedParams(&opts, metav1.ParameterCodec).URL()
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Accept", s.accept)
	resp, err := s.client.Client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		return nil, s.responseError(resp)
	}
	mediaType, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err == nil {
		var objects kruntime.Decoder
		var events kruntime.Serializer
		var framer kruntime.Framer
		if objects, events, framer, err = s.negotiator.StreamDecoder(mediaType, params); err == nil {
			// Reading through a buffer takes whatever the connection holds in
			// one call rather than a frame header, then a frame: the HTTP/2
			// transport sends a WINDOW_UPDATE (a write) for every 4 KiB read
			// in small calls, but once per call for larger ones.
			body := readCloser{bufio.NewReaderSize(resp.Body, 64<<10), resp.Body}
			frames := streaming.NewDecoder(framer.NewFrameReader(body), events)
			return &stream{frames: frames, objects: objects, body: resp.Body, cancel: cancel}, nil
		}
	}
	resp.Body.Close()
	cancel()
	return nil, errDecode{fmt.Errorf("watch response of Content-Type %q: %w", resp.Header.Get("Content-Type"), err)}
}

// responseError turns an error answer into an error: the server's Status
// when it sent one, as client-go does.
func (s *source[T]) responseError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if mediaType, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil {
		if dec, err := s.negotiator.Decoder(mediaType, params); err == nil {
			st := &metav1.Status{}
			if _, _, err := dec.Decode(body, nil, st); err == nil && st.Status == metav1.StatusFailure {
				if st.Code == 0 {
					st.Code = int32(resp.StatusCode)
				}
				return &apierrors.StatusError{ErrStatus: *st}
			}
		}
	}
	return apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodGet,
		s.res.GroupVersionResource().GroupResource(), "", strings.TrimSpace(string(body)), 0, true)
}

// list reads one page of a consistent LIST, calls each for every item and
// returns the list's resourceVersion and continue token.
func (s *source[T]) list(ctx context.Context, cont string, each func(T)) (rv, next string, err error) {
	opts := s.listOptions()
	opts.Limit = s.cfg.pageSize
	opts.Continue = cont
	page := s.res.NewList()
	if err := s.request().VersionedParams(&opts, metav1.ParameterCodec).Do(ctx).Into(page); err != nil {
		return "", "", err
	}
	lm, err := meta.ListAccessor(page)
	if err != nil {
		return "", "", errDecode{err}
	}
	// Copy each item out of the page so that the page's backing array is
	// freed once the page is done, not held by the last surviving item.
	err = meta.EachListItem(page, func(o kruntime.Object) error {
		item := reflect.New(s.elemType)
		item.Elem().Set(reflect.ValueOf(o).Elem())
		each(item.Interface().(T))
		return nil
	})
	if err != nil {
		return "", "", errDecode{err}
	}
	return lm.GetResourceVersion(), lm.GetContinue(), nil
}

// watchTimeoutSeconds returns the configured watch timeout, jittered up to
// twice it so that many clients do not reconnect at once.
func (s *source[T]) watchTimeoutSeconds() *int64 {
	d := s.cfg.watchTimeout + time.Duration(rand.Int64N(int64(s.cfg.watchTimeout)+1))
	return new(int64(d.Seconds()))
}

// readCloser reads from a buffer in front of a body and closes the body.
type readCloser struct {
	io.Reader
	io.Closer
}
