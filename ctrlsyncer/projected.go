package ctrlsyncer

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// A projection (a type generated from +syncer-gen:keep markers) keeps some
// fields of its resource, and is in no scheme: the Manager's client cannot
// write it, and a read of its upstream type would make the Manager's cache
// start an informer of the whole objects beside the projection's syncer.
// The Client reads and writes projections as their resource:
//
//   - a Get or List of the upstream type (batchv1.Job) when only its
//     projection is served is an error naming the projection;
//   - Delete deletes the object of the projection's name;
//   - Patch sends the patch computed between two projected objects
//     (client.MergeFrom) to the object, and reads the answer back into
//     the projection;
//   - Create and Update, which would send a whole object made of the
//     projection's fields and drop the others, are refused.

// projectionFor returns the served projection of obj's resource when obj's
// type is not served itself: a read of the upstream type.
func (c *Client) projectionFor(obj kruntime.Object, list bool) (served, bool) {
	c.mu.Lock()
	n := c.projections
	c.mu.Unlock()
	if n == 0 {
		return served{}, false
	}
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		return served{}, false
	}
	if list {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.served {
		if s.projected && s.gvk == gvk {
			return s, true
		}
	}
	return served{}, false
}

// readOfUpstream is the error of a read of obj, of the upstream type of the
// projection s.
func readOfUpstream(obj kruntime.Object, s served) error {
	return fmt.Errorf("ctrlsyncer: %T is read from the syncer of its projection %s, which keeps only some of its fields, and from no syncer of %T: read %s (its List type for a List); reading %T would make the Manager's cache watch every whole object beside the projection",
		obj, s.typ, obj, s.typ, obj)
}

// projected returns the served projection obj is of, if it is one.
func (c *Client) projected(obj kruntime.Object) (served, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.served[kindOf(obj)]
	return s, ok && s.projected
}

// refuseWhole is the error of a Create or Update of the projected obj.
func refuseWhole(op string, obj kruntime.Object, s served) error {
	return fmt.Errorf("ctrlsyncer: %s of %T refused: it is a projection of %s that keeps only some fields, and the object written would lose the others; use Patch (client.MergeFrom(old)), which sends only what changed, or write a %s read from the server",
		op, obj, s.gvk, s.gvk.Kind)
}

// upstreamMeta is obj's object as PartialObjectMetadata of its resource,
// for a deletion.
func upstreamMeta(obj client.Object, s served) *metav1.PartialObjectMetadata {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(s.gvk)
	m.SetNamespace(obj.GetNamespace())
	m.SetName(obj.GetName())
	m.SetUID(obj.GetUID())
	m.SetResourceVersion(obj.GetResourceVersion())
	return m
}

// patchProjected sends patch, computed from the projected obj, to obj's
// object through patchUpstream (the Manager's client, or a subresource's),
// and reads the answer back into obj. A merge patch that would replace a
// list of objects is refused: the projection may keep only some fields of
// its elements, and the list sent would lose the others.
func patchProjected(obj client.Object, s served, patch client.Patch, patchUpstream func(u *unstructured.Unstructured, p client.Patch) error) error {
	data, err := patch.Data(obj)
	if err != nil {
		return err
	}
	switch patch.Type() {
	case types.MergePatchType:
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
		if path := objectList(doc, ""); path != "" {
			return fmt.Errorf("ctrlsyncer: Patch of %T refused: the merge patch replaces the list %s, of which the projection may keep only some fields of each element; patch the fields it keeps with a JSON patch (client.RawPatch(types.JSONPatchType, ...)) or write a %s read from the server", obj, path, s.gvk.Kind)
		}
	case types.JSONPatchType:
	default:
		return fmt.Errorf("ctrlsyncer: Patch of %T refused: a %s computed from a projection, which keeps only some fields, may drop the others; use client.MergeFrom or a JSON patch", obj, patch.Type())
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(s.gvk)
	u.SetNamespace(obj.GetNamespace())
	u.SetName(obj.GetName())
	if err := patchUpstream(u, client.RawPatch(patch.Type(), data)); err != nil {
		return err
	}
	answer, err := json.Marshal(u.Object)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(obj).Elem()
	v.Set(reflect.Zero(v.Type()))
	return json.Unmarshal(answer, obj)
}

// objectList returns the path of the first list of objects in a merge
// patch, "" if none.
func objectList(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if p := objectList(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for _, e := range v {
			if _, ok := e.(map[string]any); ok {
				return path
			}
		}
	}
	return ""
}

// deleteProjected deletes the object of the projected obj, as its resource.
func (c *Client) deleteProjected(ctx context.Context, obj client.Object, s served, opts []client.DeleteOption) error {
	return c.Client.Delete(ctx, upstreamMeta(obj, s), opts...)
}
