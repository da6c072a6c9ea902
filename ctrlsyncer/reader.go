package ctrlsyncer

import (
	"context"
	"fmt"
	"reflect"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Reader is a client.Reader over syncers' stores: what a reconciler reads
// through the Manager's cache, read from syncers instead. Register each
// syncer; a type with none is an error naming the type, never an empty
// answer.
type Reader struct {
	byType map[reflect.Type]*store // by *T
	share  bool
}

// ReaderOption configures a Reader.
type ReaderOption func(*Reader)

// WithoutDeepCopy makes Get and List hand out the stores' objects, shared
// with the syncers and their handlers, as controller-runtime's cache does
// with UnsafeDisableDeepCopy: for callers that only read.
func WithoutDeepCopy() ReaderOption { return func(r *Reader) { r.share = true } }

// NewReader returns a Reader of no syncer yet: see Register.
func NewReader(opts ...ReaderOption) *Reader {
	r := &Reader{byType: map[reflect.Type]*store{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// store is what the Reader needs of one syncer's store.
type store struct {
	gr       schema.GroupResource
	get      func(namespace, name string) (client.Object, bool)
	list     func() []client.Object
	byIndex  func(index, value string) []client.Object
	hasIndex func(index string) bool
}

// Register serves s's objects, of type T, through r.
func Register[T client.Object](r *Reader, s *runtime.Syncer[T]) {
	st := s.Store()
	res := s.Resource()
	all := func(objs []T) []client.Object {
		out := make([]client.Object, len(objs))
		for i, o := range objs {
			out[i] = o
		}
		return out
	}
	r.byType[reflect.TypeFor[T]()] = &store{
		gr: schema.GroupResource{Group: res.Group, Resource: res.Resource},
		get: func(namespace, name string) (client.Object, bool) {
			o, ok := st.Get(namespace, name)
			return o, ok
		},
		list:     func() []client.Object { return all(st.List()) },
		byIndex:  func(index, value string) []client.Object { return all(st.ByIndex(index, value)) },
		hasIndex: st.HasIndex,
	}
}

func (r *Reader) storeOf(t reflect.Type) (*store, error) {
	if s, ok := r.byType[t]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("ctrlsyncer: no syncer registered for %s", t)
}

// Get copies the object of key into obj; a NotFound error when the
// syncer's store has no such object.
func (r *Reader) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	s, err := r.storeOf(reflect.TypeOf(obj))
	if err != nil {
		return err
	}
	o, ok := s.get(key.Namespace, key.Name)
	if !ok {
		return apierrors.NewNotFound(s.gr, key.Name)
	}
	r.fill(obj, o)
	return nil
}

// fill sets *dst to src, or to a deep copy of it.
func (r *Reader) fill(dst, src client.Object) {
	if !r.share {
		src = src.DeepCopyObject().(client.Object)
	}
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

// List fills list (a typed list, e.g. *WidgetList) with the objects of the
// syncer of its items' type that match opts: InNamespace, a label
// selector, and MatchingFields of one field, served by the syncer's index
// of that name (an index the syncer lacks is an error, as
// controller-runtime's cache gives). Items come sorted by namespace and
// name.
func (r *Reader) List(_ context.Context, list client.ObjectList, opts ...client.ListOption) error {
	items, err := meta.GetItemsPtr(list)
	if err != nil {
		return err
	}
	slice := reflect.ValueOf(items).Elem()
	elem := slice.Type().Elem()
	if elem.Kind() != reflect.Struct {
		return fmt.Errorf("ctrlsyncer: List of %T: items of %s, want structs", list, elem)
	}
	s, err := r.storeOf(reflect.PointerTo(elem))
	if err != nil {
		return err
	}
	var lo client.ListOptions
	lo.ApplyOptions(opts)
	objs, err := s.matching(lo.FieldSelector)
	if err != nil {
		return err
	}
	sort.Slice(objs, func(i, j int) bool {
		if objs[i].GetNamespace() != objs[j].GetNamespace() {
			return objs[i].GetNamespace() < objs[j].GetNamespace()
		}
		return objs[i].GetName() < objs[j].GetName()
	})
	out := reflect.MakeSlice(slice.Type(), 0, len(objs))
	for _, o := range objs {
		if lo.Namespace != "" && o.GetNamespace() != lo.Namespace ||
			lo.LabelSelector != nil && !lo.LabelSelector.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		var v kruntime.Object = o
		if !r.share {
			v = o.DeepCopyObject()
		}
		out = reflect.Append(out, reflect.ValueOf(v).Elem())
	}
	slice.Set(out)
	return nil
}

// matching returns the objects a field selector picks: all without one,
// those of one index's value with one.
func (s *store) matching(sel fields.Selector) ([]client.Object, error) {
	if sel == nil || sel.Empty() {
		return s.list(), nil
	}
	reqs := sel.Requirements()
	if len(reqs) != 1 || reqs[0].Operator != selection.Equals && reqs[0].Operator != selection.DoubleEquals {
		return nil, fmt.Errorf("ctrlsyncer: field selector %q: one field, matched exactly, is served (by the syncer's index of that name)", sel)
	}
	f := reqs[0].Field
	if !s.hasIndex(f) {
		return nil, fmt.Errorf("ctrlsyncer: field selector %q: the syncer of %s has no index named %q (declare it with a marker or runtime.WithIndex)", sel, s.gr, f)
	}
	return s.byIndex(f, reqs[0].Value), nil
}

var _ client.Reader = (*Reader)(nil)
