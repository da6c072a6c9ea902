package main

import (
	"sort"
	"time"

	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	corev1informers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// writtenAtAnnotation carries the unix nanoseconds at which the parent wrote
// an update, so that a child can measure the lag to its handler. Objects
// are created with it set to zero, padded to the same width, so that the
// objects keep their size when updated.
const writtenAtAnnotation = "bench.syncer-gen.io/written-at"

// resource is what the benchmark needs to know of one resource: how to make
// an object to create, and the typed contenders of the child.
type resource struct {
	plural    string
	newObject func(ns, name, payload string) kruntime.Object
	kind      childKind
	// stampLabel: the steady state's updates write their time into a
	// label rather than an annotation (writtenAt), so that a projection
	// that keeps labels but not annotations sees it.
	stampLabel bool
}

var resources = map[string]resource{
	"configmaps": {
		plural: "configmaps",
		newObject: func(ns, name, payload string) kruntime.Object {
			return &corev1.ConfigMap{ObjectMeta: objectMeta(ns, name), Data: map[string]string{"payload": payload}}
		},
		kind: kind[corev1.ConfigMap, *corev1.ConfigMap]{
			newSyncer:   newConfigMapSyncer,
			newInformer: corev1informers.NewFilteredConfigMapInformer,
		},
	},
	"secrets": {
		plural: "secrets",
		newObject: func(ns, name, payload string) kruntime.Object {
			return &corev1.Secret{ObjectMeta: objectMeta(ns, name), Data: map[string][]byte{"payload": []byte(payload)}}
		},
		kind: kind[corev1.Secret, *corev1.Secret]{
			newSyncer: func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.Secret], error) {
				return runtime.New[*corev1.Secret](cfg, runtime.Resource{
					Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true,
					NewList: func() kruntime.Object { return &corev1.SecretList{} },
				}, opts...)
			},
			newInformer: corev1informers.NewFilteredSecretInformer,
		},
	},
	// pods is the node-agent wave's resource (see nodewave.go), which
	// sets newObject for its number of nodes.
	"pods": {
		plural: "pods",
		kind: kind[corev1.Pod, *corev1.Pod]{
			newSyncer: func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.Pod], error) {
				s, err := coresyncers.NewPodSyncer(cfg, opts...)
				if err != nil {
					return nil, err
				}
				return s.Syncer, nil
			},
			newInformer: corev1informers.NewFilteredPodInformer,
		},
	},
}

// newConfigMapSyncer builds our syncer of ConfigMaps: the one syncer-gen
// generates for the examples (examples/builtin/syncers/core/v1).
func newConfigMapSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.ConfigMap], error) {
	s, err := coresyncers.NewConfigMapSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

// informerFunc is the signature of client-go's generated filtered informer
// constructors (NewFilteredConfigMapInformer...).
type informerFunc func(client kubernetes.Interface, namespace string, resync time.Duration, indexers cache.Indexers, tweak internalinterfaces.TweakListOptionsFunc) cache.SharedIndexInformer

func objectMeta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name,
		Annotations: map[string]string{writtenAtAnnotation: formatNanos(0)}}
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
