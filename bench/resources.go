package main

import (
	"sort"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
)

// writtenAtAnnotation carries the time of an update in the steady state
// (child.WrittenAtAnnotation).
const writtenAtAnnotation = child.WrittenAtAnnotation

// resource is what the parent needs to know of one resource: how to make
// an object to create. Its key in resources (or the part's option
// resource) is its name for the programs (-resource).
type resource struct {
	plural    string
	newObject func(ns, name, payload string) kruntime.Object
	// stampLabel: the steady state's updates write their time into a
	// label rather than an annotation (writtenAt), so that a projection
	// that keeps labels but not annotations sees it.
	stampLabel bool
}

var resources = map[string]resource{
	child.ConfigMaps: {
		plural: "configmaps",
		newObject: func(ns, name, payload string) kruntime.Object {
			return &corev1.ConfigMap{ObjectMeta: objectMeta(ns, name), Data: map[string]string{"payload": payload}}
		},
	},
	child.Secrets: {
		plural: "secrets",
		newObject: func(ns, name, payload string) kruntime.Object {
			return &corev1.Secret{ObjectMeta: objectMeta(ns, name), Data: map[string][]byte{"payload": []byte(payload)}}
		},
	},
	// pods is the node-agent wave's resource (see nodewave.go), which
	// sets newObject for its number of nodes.
	child.Pods: {plural: "pods"},
}

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name,
		Annotations: map[string]string{writtenAtAnnotation: child.FormatNanos(0)}}
}

// resourceNames are the resources -resource takes: those it can create.
func resourceNames() []string {
	out := make([]string, 0, len(resources))
	for n, r := range resources {
		if r.newObject != nil {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}
