package ctrlsyncer

import (
	"context"
	"encoding/json"
	"fmt"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"reflect"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// FieldIndexer returns the client.FieldIndexer of mgr's syncers, for a
// kubebuilder IndexField moved as it is: in SetupWithManager,
//
//	mgr.GetFieldIndexer().IndexField(ctx, &batchv1.Job{}, jobOwnerKey, func(o client.Object) []string {...})
//
// becomes
//
//	ctrlsyncer.FieldIndexer(mgr).IndexField(ctx, &batchv1.Job{}, jobOwnerKey, func(o client.Object) []string {...})
//
// and the syncer of obj's type that For, Owns or Add then makes has
// the index field, computed by the function (runtime.WithIndex), served
// to MatchingFields{field: value} as the Manager's cache serves it: the
// field's name is the index's, whatever it is (".metadata.controller"
// works as it is). The Manager's cache then watches nothing of the type.
// Each error is IndexField's.
//
// An index a marker can declare is better declared by one
// (+syncer-gen:index): typed, with a By<Name> lookup on the generated
// store; FieldIndexer is for a key a marker cannot compute, and for a
// switch that keeps the project's function.
func FieldIndexer(mgr manager.Manager) client.FieldIndexer {
	c, err := clientOf(mgr)
	if err != nil {
		return fieldIndexer{err: fmt.Errorf("ctrlsyncer.FieldIndexer: %w", err)}
	}
	return fieldIndexer{c: c}
}

// fieldIndexer is FieldIndexer's: its Client's, or the error of the client
// it was given.
type fieldIndexer struct {
	c   *Client
	err error
}

// IndexField gives the syncer of obj's type (the syncer's own type: for a
// projected syncer, the projection) the index field, computed by extract,
// as the Manager's cache's IndexField does for its informer. It must come
// before For, Owns or Add make that syncer (they give it the indexes
// declared so far), and a field is indexed once per type, under a name
// none of the syncer's marker indexes has (For, Owns or Add then fail: two
// indexes of one name would hide one); the indexes of
// a type that no For, Owns or Add of the Client takes stop the Manager
// when it starts, with an error that names them. extract
// is called with each object of the type as it is stored (a *T, shared with
// the store: it must not change it) and again as it is replaced or
// removed, so it must give the same values for the same object; a panic in
// it is the program's, as in the cache, whose informer panics with it. An
// index of the same name declared by a marker or a runtime.WithIndex
// option is replaced by this one.
//
// The indexes count among the syncer's options (runtime.OptionsKey names
// them): Add with the options given to For or Owns returns their syncer;
// a generated XSyncerIn(c.Set(), ...) returns it only when given
// runtime.WithIndex options of the same names too.
func (f fieldIndexer) IndexField(_ context.Context, obj client.Object, field string, extract client.IndexerFunc) error {
	if f.err != nil {
		return f.err
	}
	if obj == nil || reflect.ValueOf(obj).Kind() != reflect.Pointer {
		return fmt.Errorf("ctrlsyncer: IndexField(%q) of %T: want a pointer to an object of the type indexed, e.g. &batchv1.Job{}", field, obj)
	}
	if extract == nil {
		return fmt.Errorf("ctrlsyncer: IndexField(%q) of %T: the function that computes the index is nil", field, obj)
	}
	k := kindOf(obj)
	gvk := k.gvk
	if gvk.Empty() {
		gvk, _ = apiutil.GVKForObject(obj, f.c.Scheme()) // none for a type the scheme does not know: a projection
	}
	return f.c.addIndex(k, gvk, field, extract)
}

// indexes are the indexes IndexField declared for one kind.
type indexes struct {
	gvk      schema.GroupVersionKind // its resource, when known
	fields   []string
	extracts []client.IndexerFunc
	taken    bool // by the syncer of its resource: no more can be added
}

// addIndex declares the index field of the objects of kind k, of gvk.
func (c *Client) addIndex(k kind, gvk schema.GroupVersionKind, field string, extract client.IndexerFunc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ix := c.indexes[k]
	if ix == nil {
		ix = &indexes{gvk: gvk}
		c.indexes[k] = ix
	}
	switch {
	case ix.taken:
		return fmt.Errorf("ctrlsyncer: IndexField(%q) of %s comes after For, Owns or Add made the syncer of %s, which keeps the indexes it was made with: call IndexField before For/Owns/Add", field, k, k)
	case slices.Contains(ix.fields, field):
		return fmt.Errorf("ctrlsyncer: IndexField(%q) of %s: indexer conflict: %q is indexed already (a field is indexed once per type, as the Manager's cache refuses it too)", field, k, field)
	}
	ix.fields = append(ix.fields, field)
	ix.extracts = append(ix.extracts, extract)
	return nil
}

// takeIndexes returns the options of the indexes declared for the syncer
// of type t of the resource gvk, to make it with: those of t, and those of
// another type of the same resource (its upstream type, indexed for a
// projection; PartialObjectMetadata of it), each object converted to that
// type for the function. IndexField of them is refused from then on.
func (c *Client) takeIndexes(t reflect.Type, gvk schema.GroupVersionKind) []runtime.Option {
	c.mu.Lock()
	defer c.mu.Unlock()
	own := kind{t: t}
	if anyResource(t) {
		own.gvk = gvk
	}
	var opts []runtime.Option
	for k, ix := range c.indexes {
		if k != own && (ix.gvk.Empty() || ix.gvk != gvk) {
			continue
		}
		ix.taken = true
		for i, field := range ix.fields {
			extract := ix.extracts[i]
			if k.t != t {
				extract = convertedFor(k.t, extract)
			}
			opts = append(opts, runtime.WithIndex(field, extract))
		}
	}
	if c.indexes[own] == nil {
		c.indexes[own] = &indexes{gvk: gvk, taken: true} // nothing declared: no more can be
	}
	return opts
}

// convertedFor makes extract, a function of objects of type u, take the
// syncer's objects of another type of the same resource: each converted
// to a u through its JSON, which a projection shares with its upstream
// type (what it does not keep is left empty). It costs a JSON encoding
// and decoding of each object as it is stored.
func convertedFor(u reflect.Type, extract client.IndexerFunc) client.IndexerFunc {
	return func(o client.Object) []string {
		data, err := json.Marshal(o)
		if err != nil {
			panic(fmt.Sprintf("ctrlsyncer: an object of %T for an index of %s: %v", o, u, err))
		}
		up := reflect.New(u.Elem()).Interface().(client.Object)
		if err := json.Unmarshal(data, up); err != nil {
			panic(fmt.Sprintf("ctrlsyncer: an object of %T for an index of %s: %v", o, u, err))
		}
		return extract(up)
	}
}

// untakenIndexes is an error naming the types whose indexes IndexField
// declared but no syncer took (For, Owns or Add of the type never came):
// their reads go to the Manager's cache, which has no such index.
func (c *Client) untakenIndexes() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lost []string
	for k, ix := range c.indexes {
		if !ix.taken {
			lost = append(lost, fmt.Sprintf("%s (%s)", k, strings.Join(ix.fields, ", ")))
		}
	}
	if len(lost) == 0 {
		return nil
	}
	slices.Sort(lost)
	return fmt.Errorf("ctrlsyncer: IndexField declared indexes of %s, but For, Owns or Add made no syncer of the type to keep them: add its syncer, or index it with mgr.GetFieldIndexer() if the Manager's cache reads it", strings.Join(lost, "; "))
}

var _ client.FieldIndexer = fieldIndexer{}
