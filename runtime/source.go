package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// source makes the list and watch requests of one resource and decodes
// typed objects straight from the responses: protobuf where the type
// supports it, JSON otherwise.
type source[T Object] struct {
	client   rest.Interface
	res      Resource
	cfg      *config
	key      string // server and resource, for the mode memory
	elemType reflect.Type
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
	c.NegotiatedSerializer = codecs.WithoutConversion()
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
		client:   client,
		res:      res,
		cfg:      cfg,
		key:      restCfg.Host + restCfg.APIPath + "|" + res.String(),
		elemType: t.Elem(),
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
func (s *source[T]) watchList(ctx context.Context) (watch.Interface, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.SendInitialEvents = new(true)
	opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	opts.TimeoutSeconds = s.watchTimeoutSeconds()
	return s.request().VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
}

// watch opens a plain watch from rv.
func (s *source[T]) watch(ctx context.Context, rv string) (watch.Interface, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.ResourceVersion = rv
	opts.TimeoutSeconds = s.watchTimeoutSeconds()
	return s.request().VersionedParams(&opts, metav1.ParameterCodec).Watch(ctx)
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
