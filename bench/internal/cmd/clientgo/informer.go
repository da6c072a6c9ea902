package main

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// informerFunc is the signature of client-go's generated filtered informer
// constructors (NewFilteredConfigMapInformer...).
type informerFunc func(client kubernetes.Interface, namespace string, resync time.Duration, indexers cache.Indexers, tweak internalinterfaces.TweakListOptionsFunc) cache.SharedIndexInformer

// newInformerFunc makes a client-go SharedIndexInformer of one namespace,
// with no indexes, of the objects fieldSelector selects ("" for all).
type newInformerFunc func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error)

// typedInformer makes informers with one of client-go's generated informer
// constructors, over a clientset speaking protobuf like our syncer.
func typedInformer(newInformer informerFunc) newInformerFunc {
	return func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error) {
		c := rest.CopyConfig(cfg)
		c.ContentType = kruntime.ContentTypeProtobuf
		c.AcceptContentTypes = kruntime.ContentTypeProtobuf + "," + kruntime.ContentTypeJSON
		cs, err := kubernetes.NewForConfig(c)
		if err != nil {
			return nil, err
		}
		return newInformer(cs, namespace, 0, cache.Indexers{}, func(o *metav1.ListOptions) { o.FieldSelector = fieldSelector }), nil
	}
}

// runInformer runs client-go's SharedIndexInformer until its handlers have
// seen the initial state (their registrations' HasSynced). Whether the
// reflector uses WatchList follows KUBE_FEATURE_WatchListClient, set by the
// parent. The slow handler, when the contender has one, is a second
// listener.
func runInformer[P metav1.Object](ctx context.Context, e *child.Env, newInformer newInformerFunc) (child.Outcome, error) {
	inf, err := newInformer(e.Cfg, e.Namespace, e.FieldSelector)
	if err != nil {
		return child.Outcome{}, err
	}
	var added atomic.Int64
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { added.Add(1) },
		UpdateFunc: func(_, obj any) { e.Lags.Observe(obj.(P)) },
	})
	if err != nil {
		return child.Outcome{}, err
	}
	synced := reg.HasSynced
	if e.Slow != nil {
		slow, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { e.Slow.Call() },
			UpdateFunc: func(_, _ any) { e.Slow.Call() },
			DeleteFunc: func(any) { e.Slow.Call() },
		})
		if err != nil {
			return child.Outcome{}, err
		}
		// As ours' WaitForSync, which waits for every handler: else the
		// slow handler may still be getting its initial adds when the
		// steady state starts, and count them as steady calls.
		synced = func() bool { return reg.HasSynced() && slow.HasSynced() }
	}
	go inf.Run(ctx.Done())
	if err := driver.PollUntil(ctx, e.Timeout, synced); err != nil {
		return child.Outcome{}, err
	}
	return child.Outcome{Objects: int(added.Load()), Keep: inf}, nil
}

// stripping returns newInformer with a transform that clears each object's
// managedFields before the informer stores it, as controllers that keep
// many objects set one (controller-runtime's TransformStripManagedFields
// is this cache.TransformFunc).
func stripping(newInformer newInformerFunc) newInformerFunc {
	return func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error) {
		inf, err := newInformer(cfg, namespace, fieldSelector)
		if err != nil {
			return nil, err
		}
		return inf, inf.SetTransform(stripManagedFields)
	}
}

// stripManagedFields clears an object's managedFields; nil ones are left
// alone, as controller-runtime's transform does (kubernetes#124337).
func stripManagedFields(in any) (any, error) {
	if obj, err := meta.Accessor(in); err == nil && obj.GetManagedFields() != nil {
		obj.SetManagedFields(nil)
	}
	return in, nil
}
