package ctrlsyncer

import (
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// kind names what a syncer serves: a Go type (a *T) and, for the types
// that can hold any resource (*metav1.PartialObjectMetadata and
// *unstructured.Unstructured, as package dynamicsyncer's syncers keep
// them), the GroupVersionKind, which a read gives in its object's TypeMeta
// as it does to the Manager's cache.
type kind struct {
	t   reflect.Type
	gvk schema.GroupVersionKind // zero for a type of one resource
}

var (
	metadataType     = reflect.TypeFor[*metav1.PartialObjectMetadata]()
	unstructuredType = reflect.TypeFor[*unstructured.Unstructured]()
)

// anyResource tells whether objects of type t may be of any resource.
func anyResource(t reflect.Type) bool { return t == metadataType || t == unstructuredType }

// kindOf is the kind a read of obj asks for.
func kindOf(obj kruntime.Object) kind {
	t := reflect.TypeOf(obj)
	if !anyResource(t) {
		return kind{t: t}
	}
	return kind{t: t, gvk: obj.GetObjectKind().GroupVersionKind()}
}

// kindOfList is the kind a List of list asks for, its items of type *elem.
func kindOfList(list kruntime.Object, elem reflect.Type) kind {
	t := reflect.PointerTo(elem)
	if !anyResource(t) {
		return kind{t: t}
	}
	gvk := list.GetObjectKind().GroupVersionKind()
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return kind{t: t, gvk: gvk}
}

// kindOfSyncer is the kind a syncer of T for res serves.
func kindOfSyncer[T any](res runtime.Resource) kind {
	t := reflect.TypeFor[T]()
	if !anyResource(t) {
		return kind{t: t}
	}
	return kind{t: t, gvk: gvkOf(res)}
}

// gvkOf is res's GroupVersionKind.
func gvkOf(res runtime.Resource) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: res.Group, Version: res.Version, Kind: res.Kind}
}

func (k kind) String() string {
	if k.gvk.Empty() {
		return k.t.String()
	}
	return k.t.String() + " of " + k.gvk.String()
}

// inScheme tells whether scheme knows T, a pointer to a struct.
func inScheme[T any](scheme *kruntime.Scheme) bool {
	obj, ok := reflect.New(reflect.TypeFor[T]().Elem()).Interface().(kruntime.Object)
	if !ok || scheme == nil {
		return false
	}
	_, _, err := scheme.ObjectKinds(obj)
	return err == nil
}
