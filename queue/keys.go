package queue

import (
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ObjectKey enqueues the object's own namespace/name.
func ObjectKey[T runtime.Object](obj T) []runtime.Key { return []runtime.Key{runtime.KeyOf(obj)} }

// OwnerKey enqueues the owner of kind (e.g. "Widget") of an owned object:
// the controller owner reference of that kind if there is one, else every
// owner reference of that kind. Owners are in the object's namespace (a
// namespaced object cannot be owned across namespaces; a cluster-scoped
// one has namespace ""). apiVersion is not compared: pass a kind that is
// unique among the owners your objects have.
func OwnerKey[T runtime.Object](kind string) KeyFunc[T, runtime.Key] {
	return func(obj T) []runtime.Key {
		refs := obj.GetOwnerReferences()
		if c := metav1.GetControllerOfNoCopy(obj); c != nil && c.Kind == kind {
			return []runtime.Key{{Namespace: obj.GetNamespace(), Name: c.Name}}
		}
		var keys []runtime.Key
		for _, r := range refs {
			if r.Kind == kind {
				keys = append(keys, runtime.Key{Namespace: obj.GetNamespace(), Name: r.Name})
			}
		}
		return keys
	}
}

// Filter enqueues the keys of key only for objects that keep returns true for.
func Filter[T runtime.Object, K comparable](keep func(T) bool, key KeyFunc[T, K]) KeyFunc[T, K] {
	return func(obj T) []K {
		if !keep(obj) {
			return nil
		}
		return key(obj)
	}
}
