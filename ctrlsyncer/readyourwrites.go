package ctrlsyncer

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Read-your-own-writes through the Client (controller-runtime's
// EnableReadYourWritesConsistency, per object): each write of a type a
// syncer serves is recorded in that syncer's runtime.Writes, and each read
// of it waits until the syncer's store has seen the writes that can change
// its answer. Writes of served types reach the Manager's client with
// client.DisableReadYourWritesConsistency, so that its own consistency
// layer never starts an informer for them.

// writer is a syncer's runtime.Writes, whatever its type.
type writer interface {
	begin(obj client.Object) func()
	wrote(obj client.Object)
	wroteApplied(ac kruntime.ApplyConfiguration) error
	deleted(obj client.Object, uid *string)
	waitGet(ctx context.Context, key client.ObjectKey) error
	waitList(ctx context.Context, sel runtime.Selection) error
}

type typedWriter[T client.Object] struct {
	w          *runtime.Writes[T]
	namespaced bool
}

func newWriter[T client.Object](s *runtime.Syncer[T], limit time.Duration) writer {
	return typedWriter[T]{w: runtime.NewWrites(s, limit), namespaced: s.Resource().Namespaced}
}

func (t typedWriter[T]) begin(obj client.Object) func() {
	return t.w.Begin(obj.GetNamespace(), obj.GetName())
}

func (t typedWriter[T]) wrote(obj client.Object) { t.w.Wrote(obj.(T)) }

// wroteApplied records the answer to an apply, which controller-runtime
// decodes into the apply configuration: read as T through its JSON, which
// an apply configuration shares with its type.
func (t typedWriter[T]) wroteApplied(ac kruntime.ApplyConfiguration) error {
	data, err := json.Marshal(ac)
	if err != nil {
		return err
	}
	obj := reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T)
	if err := json.Unmarshal(data, obj); err != nil {
		return err
	}
	t.w.Wrote(obj)
	return nil
}

func (t typedWriter[T]) deleted(obj client.Object, uid *string) {
	o := obj.(T)
	if uid != nil && *uid != "" && string(o.GetUID()) != *uid {
		o = o.DeepCopyObject().(T)
		o.SetUID(types.UID(*uid))
	}
	t.w.Deleted(o)
}

func (t typedWriter[T]) waitGet(ctx context.Context, key client.ObjectKey) error {
	if !t.namespaced {
		key.Namespace = "" // as the Reader reads it
	}
	return t.w.WaitForGet(ctx, key.Namespace, key.Name)
}

func (t typedWriter[T]) waitList(ctx context.Context, sel runtime.Selection) error {
	return t.w.WaitForList(ctx, sel)
}

// writerOf returns the writer of obj's type when c reads it from a syncer
// (nil otherwise), and whether c waits for its own writes of it.
func (c *Client) writerOf(t kind) (writer, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.served[t]
	if !ok {
		return nil, false
	}
	return s.writes, c.consistent
}

// selectionOf is what a List with opts reads, for its wait: the namespace,
// the label selector and the fields matched exactly (each an index of the
// syncer's; other requirements the Reader refuses).
func selectionOf(lo *client.ListOptions) runtime.Selection {
	sel := runtime.Selection{Namespace: lo.Namespace, Labels: lo.LabelSelector}
	if lo.FieldSelector != nil && !lo.FieldSelector.Empty() {
		sel.Indexes = exactFields(lo.FieldSelector)
	}
	return sel
}

func exactFields(fs fields.Selector) map[string]string {
	out := map[string]string{}
	for _, req := range fs.Requirements() {
		if req.Operator == selection.Equals || req.Operator == selection.DoubleEquals {
			out[req.Field] = req.Value
		}
	}
	return out
}

// write runs do, a write of obj through the Manager's client, and records
// its answer when c reads obj's type from a syncer and waits for its own
// writes (and the call did not disable it).
func (c *Client) write(obj client.Object, disabled bool, do func(off bool) error, record func(writer)) error {
	w, on := c.writerOf(kindOf(obj))
	if w == nil {
		return do(false)
	}
	off := c.shadow == nil // with shadow reads, the Manager's client answers the reads, its consistency too
	if !on || disabled {
		return do(off)
	}
	end := w.begin(obj)
	defer end() // after record: a read that waits for this write finds its answer
	err := do(off)
	if err == nil {
		record(w)
	}
	return err
}

// Create creates obj through the Manager's client; see Client's
// read-your-own-writes.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if s, ok := c.projected(obj); ok {
		return refuseWhole("Create", obj, s)
	}
	return c.write(obj, (&client.CreateOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		return c.Client.Create(ctx, obj, withOff(opts, off)...)
	}, func(w writer) { w.wrote(obj) })
}

// Update updates obj through the Manager's client; see Client's
// read-your-own-writes.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if s, ok := c.projected(obj); ok {
		return refuseWhole("Update", obj, s)
	}
	return c.write(obj, (&client.UpdateOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		return c.Client.Update(ctx, obj, withOff(opts, off)...)
	}, func(w writer) { w.wrote(obj) })
}

// Patch patches obj through the Manager's client; see Client's
// read-your-own-writes.
func (c *Client) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return c.write(obj, (&client.PatchOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		if s, ok := c.projected(obj); ok {
			return patchProjected(obj, s, patch, func(u *unstructured.Unstructured, p client.Patch) error {
				return c.Client.Patch(ctx, u, p, withOff(opts, off)...)
			})
		}
		return c.Client.Patch(ctx, obj, patch, withOff(opts, off)...)
	}, func(w writer) { w.wrote(obj) })
}

// Delete deletes obj through the Manager's client; see Client's
// read-your-own-writes: the reads that follow wait until the syncer's
// store no longer holds obj (gone, replaced by another UID, or marked for
// deletion while finalizers keep it).
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	do := (&client.DeleteOptions{}).ApplyOptions(opts)
	var uid *string
	if p := do.Preconditions; p != nil && p.UID != nil {
		s := string(*p.UID)
		uid = &s
	}
	return c.write(obj, do.DisableReadYourWritesConsistency, func(off bool) error {
		if s, ok := c.projected(obj); ok {
			return c.deleteProjected(ctx, obj, s, withOff(opts, off))
		}
		return c.Client.Delete(ctx, obj, withOff(opts, off)...)
	}, func(w writer) { w.deleted(obj, uid) })
}

// Apply applies obj through the Manager's client; see Client's
// read-your-own-writes.
func (c *Client) Apply(ctx context.Context, obj kruntime.ApplyConfiguration, opts ...client.ApplyOption) error {
	return c.apply(obj, (&client.ApplyOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		return c.Client.Apply(ctx, obj, withOff(opts, off)...)
	})
}

// apply is write for an apply configuration, whose type is found by its
// apiVersion and kind among the types c's syncers serve.
func (c *Client) apply(ac kruntime.ApplyConfiguration, disabled bool, do func(off bool) error) error {
	t, key, ok := c.kindOfApplied(ac)
	if !ok {
		return do(false)
	}
	w, on := c.writerOf(t)
	off := c.shadow == nil // as in write
	if !on || disabled {
		return do(off)
	}
	end := w.begin(key)
	defer end() // as in write
	err := do(off)
	if err != nil {
		return err
	}
	if err := w.wroteApplied(ac); err != nil {
		return fmt.Errorf("ctrlsyncer: the answer to an apply of %s, for the reads that follow: %w", t, err)
	}
	return nil
}

// appliedUnstructured is what client.ApplyConfigurationFromUnstructured
// makes: an apply configuration that is an *unstructured.Unstructured
// (embedded), into which the Manager's client decodes the answer.
type appliedUnstructured interface {
	kruntime.ApplyConfiguration
	UnstructuredContent() map[string]any
	GroupVersionKind() schema.GroupVersionKind
	GetName() string
	GetNamespace() string
}

// kindOfApplied returns the kind of c's syncer of ac's apiVersion and kind
// that holds whole objects, if one serves them, and an object of that
// kind named as ac, for the write in flight. A syncer of ac's own
// representation is taken first (typed for an apply configuration of a
// type, Unstructured for client.ApplyConfigurationFromUnstructured), else
// the other: either's reads see the apply.
func (c *Client) kindOfApplied(ac kruntime.ApplyConfiguration) (kind, client.Object, bool) {
	var gvk schema.GroupVersionKind
	var namespace, name string
	unstructuredFirst := false
	switch a := ac.(type) {
	case appliedUnstructured:
		gvk, namespace, name, unstructuredFirst = a.GroupVersionKind(), a.GetNamespace(), a.GetName(), true
	case interface {
		GetAPIVersion() *string
		GetKind() *string
	}:
		if a.GetAPIVersion() == nil || a.GetKind() == nil {
			return kind{}, nil, false
		}
		gvk = schema.FromAPIVersionAndKind(*a.GetAPIVersion(), *a.GetKind())
		if n, ok := ac.(interface{ GetName() *string }); ok {
			name = deref(n.GetName())
		}
		if n, ok := ac.(interface{ GetNamespace() *string }); ok {
			namespace = deref(n.GetNamespace())
		}
	default:
		return kind{}, nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var typed, unstr kind
	var hasTyped, hasUnstr bool
	for k, s := range c.served {
		switch {
		case k.gvk.Empty() && s.gvk == gvk && !s.projected:
			typed, hasTyped = k, true
		case k.t == unstructuredType && k.gvk == gvk:
			unstr, hasUnstr = k, true
		}
	}
	var t kind
	switch {
	case hasUnstr && (unstructuredFirst || !hasTyped):
		t = unstr
	case hasTyped:
		t = typed
	default:
		return kind{}, nil, false
	}
	key := reflect.New(t.t.Elem()).Interface().(client.Object)
	key.SetNamespace(namespace)
	key.SetName(name)
	return t, key, true
}

// Status returns the writer of objects' status subresource; see
// SubResource.
func (c *Client) Status() client.SubResourceWriter { return c.SubResource("status") }

// SubResource returns the client of subResource through the Manager's
// client. Its Update, Patch and Apply of a type a syncer serves count as
// writes of the object, as the Client's own; its Create (an eviction, a
// token: nothing the object's store holds) does not, as in
// controller-runtime.
func (c *Client) SubResource(subResource string) client.SubResourceClient {
	return subResourceClient{c: c, sub: c.Client.SubResource(subResource)}
}

type subResourceClient struct {
	c   *Client
	sub client.SubResourceClient
}

func (s subResourceClient) Get(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceGetOption) error {
	return s.sub.Get(ctx, obj, subResource, opts...)
}

func (s subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	if w, _ := s.c.writerOf(kindOf(obj)); w != nil {
		opts = withOff(opts, s.c.shadow == nil)
	}
	return s.sub.Create(ctx, obj, subResource, opts...)
}

func (s subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if p, ok := s.c.projected(obj); ok {
		return refuseWhole("Update", obj, p)
	}
	return s.c.write(obj, (&client.SubResourceUpdateOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		return s.sub.Update(ctx, obj, withOff(opts, off)...)
	}, func(w writer) { w.wrote(obj) })
}

func (s subResourceClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	return s.c.write(obj, (&client.SubResourcePatchOptions{}).ApplyOptions(opts).DisableReadYourWritesConsistency, func(off bool) error {
		if p, ok := s.c.projected(obj); ok {
			return patchProjected(obj, p, patch, func(u *unstructured.Unstructured, pt client.Patch) error {
				return s.sub.Patch(ctx, u, pt, withOff(opts, off)...)
			})
		}
		return s.sub.Patch(ctx, obj, patch, withOff(opts, off)...)
	}, func(w writer) { w.wrote(obj) })
}

func (s subResourceClient) Apply(ctx context.Context, obj kruntime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	return s.c.apply(obj, (&client.SubResourceApplyOptions{}).ApplyOpts(opts).DisableReadYourWritesConsistency, func(off bool) error {
		return s.sub.Apply(ctx, obj, withOff(opts, off)...)
	})
}

// withOff adds client.DisableReadYourWritesConsistency to opts when off:
// the Manager's client, whose own consistency would watch the type with an
// informer of the Manager's cache, leaves a served type's writes to the
// Client.
func withOff[O any](opts []O, off bool) []O {
	if !off {
		return opts
	}
	d, ok := any(client.DisableReadYourWritesConsistency).(O)
	if !ok {
		return opts
	}
	return append(opts[:len(opts):len(opts)], d)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// managerReadsItsWrites tells whether c, a Manager's client, waits for its
// own writes (client.CacheOptions.EnableReadYourWritesConsistency): its
// consistency layer, controller-runtime's unexported consistentClient, is
// found in it or in the wrappers around it (dry run, field owner, field
// validation), by type. TestManagersSwitchIsFound fails on a
// controller-runtime that names it otherwise.
func managerReadsItsWrites(c client.Client) bool {
	seen := map[reflect.Type]bool{}
	var find func(v reflect.Value, depth int) bool
	find = func(v reflect.Value, depth int) bool {
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
				t := v.Type().Elem()
				if t.Name() == "consistentClient" && strings.HasPrefix(t.PkgPath(), "sigs.k8s.io/controller-runtime/") {
					return true
				}
			}
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct || depth > 4 || seen[v.Type()] {
			return false
		}
		seen[v.Type()] = true
		for i := range v.NumField() {
			if f := v.Field(i); f.Type().Implements(reflect.TypeFor[client.Client]()) && find(f, depth+1) {
				return true
			}
		}
		return false
	}
	return find(reflect.ValueOf(c), 0)
}
