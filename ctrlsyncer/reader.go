package ctrlsyncer

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Reader is a client.Reader over syncers' stores: what a reconciler reads
// through the Manager's cache, read from syncers instead, with the cache's
// semantics: a read waits for the syncer's sync (or the context) and fails
// with cache.ErrCacheNotStarted when the syncer has not started; objects
// come as deep copies with their GroupVersionKind set. Register each
// syncer; a type with none is an error naming the type, never an empty
// answer. Its methods are safe for concurrent use.
type Reader struct {
	mu     sync.RWMutex
	byType map[kind]*store
	share  bool
	names  namesOptions // for syncers over names (named.go)
}

// ReaderOption configures a Reader.
type ReaderOption func(*Reader)

// WithoutDeepCopy makes Get and List hand out the stores' objects, shared
// with the syncers and their handlers, as controller-runtime's cache does
// with UnsafeDisableDeepCopy: for callers that only read. A call's own
// client.UnsafeDisableDeepCopy does the same for that call.
func WithoutDeepCopy() ReaderOption { return func(r *Reader) { r.share = true } }

// NewReader returns a Reader of no syncer yet: see Register.
func NewReader(opts ...ReaderOption) *Reader {
	r := &Reader{byType: map[kind]*store{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// store is what the Reader needs of one syncer: its store, its state, and
// whether it was started.
type store struct {
	syncer   syncerState
	gvk      schema.GroupVersionKind
	typeMeta metav1.TypeMeta // gvk's, its apiVersion made once
	typ      string          // the syncer's type, as the cache's errors name it (%T): *v1.Pod
	share    bool            // reads hand out the store's objects (the cache's UnsafeDisableDeepCopy for the type)
	started  func() bool
	get      func(namespace, name string) (client.Object, bool)
	list     func(namespace string) []client.Object               // "": every namespace
	byIndex  func(namespace, index, value string) []client.Object // "": every namespace
	hasIndex func(index string) bool
	covers   func(namespace string) (covered, synced bool) // runtime.Syncer.Covers
	names    *names                                        // a syncer over names (runtime.WithNames); nil otherwise
}

// syncerState is what a Reader and a Source tell of a *runtime.Syncer[T]
// whatever its T.
type syncerState interface {
	HasSynced() bool
	LastError() *runtime.SyncError
	Progress() runtime.Progress
	Resource() runtime.Resource
	WaitNoOlderThan(ctx context.Context, d time.Duration) error
}

// Register serves s's objects, of type T, through r. A syncer counts as
// started once it has begun a sync (runtime.Progress), synced or failed:
// run it with Runnable in a Manager, a syncerset, or Run.
func Register[T client.Object](r *Reader, s *runtime.Syncer[T]) {
	register(r, s, func() bool { return begun(s) })
}

// begun tells whether s has been run: it began a sync, synced or failed.
func begun(s syncerState) bool {
	return s.HasSynced() || s.LastError() != nil || !s.Progress().Started.IsZero()
}

// register serves s through r; started tells whether s has been started.
func register[T client.Object](r *Reader, s *runtime.Syncer[T], started func() bool) {
	st := s.Store()
	res := s.Resource()
	all := func(objs []T) []client.Object {
		out := make([]client.Object, len(objs))
		for i, o := range objs {
			out[i] = o
		}
		return out
	}
	kind := res.Kind
	if kind == "" {
		kind = reflect.TypeFor[T]().Elem().Name()
	}
	gvk := schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: kind}
	apiVersion, _ := gvk.ToAPIVersionAndKind()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byType[kindOfSyncer[T](res)] = &store{
		syncer:   s,
		gvk:      gvk,
		typeMeta: metav1.TypeMeta{APIVersion: apiVersion, Kind: kind},
		typ:      reflect.TypeFor[T]().String(),
		started:  started,
		get: func(namespace, name string) (client.Object, bool) {
			if !res.Namespaced {
				namespace = "" // as the cache does with a key of a cluster-scoped object
			}
			o, ok := st.Get(namespace, name)
			return o, ok
		},
		list: func(namespace string) []client.Object {
			if namespace == "" {
				return all(st.List())
			}
			return all(st.InNamespace(namespace))
		},
		byIndex: func(namespace, index, value string) []client.Object {
			return all(st.ByIndexInNamespace(namespace, index, value))
		},
		hasIndex: st.HasIndex,
		covers:   s.Covers,
		names:    namesOf(s, r.names),
	}
}

// shareObjects makes the reads of kind k hand out the store's objects, as
// the cache's UnsafeDisableDeepCopy for the type does.
func (r *Reader) shareObjects(k kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.byType[k]; s != nil {
		s.share = true
	}
}

// storeOf returns the store of objects of kind k, nil if no syncer serves
// them.
func (r *Reader) storeOf(k kind) *store {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byType[k]
}

// serves tells whether r has a syncer of obj's kind.
func (r *Reader) serves(obj client.Object) bool { return r.storeOf(kindOf(obj)) != nil }

// servesList tells whether r has a syncer of the items of list, and which.
func (r *Reader) servesList(list client.ObjectList) (*store, reflect.Value, error) {
	s, _, slice, err := r.listed(list)
	return s, slice, err
}

// listed returns the store of the items of list (nil if none), their kind
// and the list's items.
func (r *Reader) listed(list client.ObjectList) (*store, kind, reflect.Value, error) {
	items, err := meta.GetItemsPtr(list)
	if err != nil {
		return nil, kind{}, reflect.Value{}, err
	}
	slice := reflect.ValueOf(items).Elem()
	elem := slice.Type().Elem()
	if elem.Kind() != reflect.Struct {
		return nil, kind{}, slice, fmt.Errorf("ctrlsyncer: List of %T: items of %s, want structs", list, elem)
	}
	k := kindOfList(list, elem)
	return r.storeOf(k), k, slice, nil
}

func noSyncer(t any) error {
	return fmt.Errorf("ctrlsyncer: no syncer registered for %T", t)
}

// Get copies the object of key into obj, once its syncer has synced. Its
// errors are the cache's, word for word: a NotFound of the object's kind
// (`Pod "x" not found`, its StatusDetails naming the kind where the
// server's would name the resource) when the syncer's store has no such
// object, and for a namespace the syncer does not cover "unable to get:
// ns/name because of unknown namespace for the cache", never a NotFound.
func (r *Reader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	s := r.storeOf(kindOf(obj))
	if s == nil {
		return noSyncer(obj)
	}
	if err := s.readyKey(ctx, key); err != nil {
		if errors.Is(err, errUnknownNamespace) {
			return fmt.Errorf("unable to get: %v because of unknown namespace for the cache", key)
		}
		return err
	}
	o, ok := s.get(key.Namespace, key.Name)
	if !ok {
		// As the cache's: "Resource gets set as Kind in the error".
		return apierrors.NewNotFound(schema.GroupResource{Group: s.gvk.Group, Resource: s.gvk.Kind}, key.Name)
	}
	var g client.GetOptions
	g.ApplyOptions(opts)
	share := r.shared(s, g.UnsafeDisableDeepCopy)
	if !share {
		o = o.DeepCopyObject().(client.Object)
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(o).Elem())
	if !share {
		s.setKind(obj) // obj's own TypeMeta: the store's object is untouched
	}
	return nil
}

// setKind sets obj's GroupVersionKind, as the cache does, without making
// its apiVersion again for each object. Like the cache, a read that hands
// out the store's objects (UnsafeDisableDeepCopy) does not: an
// Unstructured's content is the store's map, shared with every reader.
func (s *store) setKind(obj client.Object) {
	if tm, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		*tm = s.typeMeta
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(s.gvk)
}

// shared tells whether a call of s hands out the store's objects.
func (r *Reader) shared(s *store, unsafe *bool) bool {
	return r.share || s.share || unsafe != nil && *unsafe
}

// List fills list (a typed list, e.g. *WidgetList) with the objects of the
// syncer of its items' type that match opts, once that syncer has synced:
// InNamespace, served by the store's namespace index, a label selector,
// and MatchingFields of one or more fields, each served by the syncer's
// index of that name (an index the syncer lacks is an error, as
// controller-runtime's cache gives). Items come
// sorted by namespace and name; Limit keeps the first ones. Continue is
// refused with an error, and the list's continue token says so, as the
// cache's does: a store has no pages. A namespace the syncer does not
// cover is an error, as in the cache, never an empty list. Its errors are
// the cache's, word for word.
func (r *Reader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	s, slice, err := r.servesList(list)
	if err != nil {
		return err
	}
	if s == nil {
		return noSyncer(list)
	}
	var lo client.ListOptions
	lo.ApplyOptions(opts)
	if lo.Continue != "" {
		return errors.New("continue list option is not supported by the cache") // the cache's words: a store has no pages
	}
	if s.names != nil && !s.names.o.lists {
		return errListOfNames(list)
	}
	if err := s.ready(ctx, lo.Namespace); err != nil {
		if errors.Is(err, errUnknownNamespace) {
			return fmt.Errorf("unable to list: %v because of unknown namespace for the cache", lo.Namespace)
		}
		return err
	}
	objs, err := s.matching(lo.Namespace, lo.FieldSelector)
	if err != nil {
		return err
	}
	slices.SortFunc(objs, func(a, b client.Object) int {
		if c := strings.Compare(a.GetNamespace(), b.GetNamespace()); c != 0 {
			return c
		}
		return strings.Compare(a.GetName(), b.GetName())
	})
	kept := objs[:0] // the items: what the label selector keeps, up to Limit
	for _, o := range objs {
		if lo.Limit > 0 && int64(len(kept)) >= lo.Limit {
			break
		}
		if lo.LabelSelector == nil || lo.LabelSelector.Matches(labels.Set(o.GetLabels())) {
			kept = append(kept, o)
		}
	}
	share := r.shared(s, lo.UnsafeDisableDeepCopy)
	out := reflect.MakeSlice(slice.Type(), len(kept), len(kept))
	for i, o := range kept {
		if !share {
			o = o.DeepCopyObject().(client.Object)
		}
		item := out.Index(i)
		item.Set(reflect.ValueOf(o).Elem())
		if !share {
			s.setKind(item.Addr().Interface().(client.Object))
		}
	}
	slice.Set(out)
	list.SetContinue("continue-not-supported")
	return nil
}

var _ client.Reader = (*Reader)(nil)
