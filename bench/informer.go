package main

import (
	"context"
	"sync/atomic"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
)

// newInformerFunc makes a client-go SharedIndexInformer of one namespace,
// with no indexes, of the objects fieldSelector selects ("" for all).
type newInformerFunc func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error)

// typedInformer makes informers with one of client-go's generated informer
// constructors, over a clientset speaking protobuf like our syncer.
func typedInformer(newInformer informerFunc) newInformerFunc {
	return func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error) {
		cs, err := kubernetes.NewForConfig(protobufConfig(cfg))
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
func runInformer[P metav1.Object](ctx context.Context, e *childEnv, newInformer newInformerFunc) (syncOutcome, error) {
	inf, err := newInformer(e.cfg, e.namespace, e.fieldSelector)
	if err != nil {
		return syncOutcome{}, err
	}
	var added atomic.Int64
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { added.Add(1) },
		UpdateFunc: func(_, obj any) { e.lags.observe(obj.(P)) },
	})
	if err != nil {
		return syncOutcome{}, err
	}
	synced := reg.HasSynced
	if e.slow != nil {
		slow, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { e.slow.call() },
			UpdateFunc: func(_, _ any) { e.slow.call() },
			DeleteFunc: func(any) { e.slow.call() },
		})
		if err != nil {
			return syncOutcome{}, err
		}
		// As ours' WaitForSync, which waits for every handler: else the
		// slow handler may still be getting its initial adds when the
		// steady state starts, and count them as steady calls.
		synced = func() bool { return reg.HasSynced() && slow.HasSynced() }
	}
	go inf.Run(ctx.Done())
	if err := driver.PollUntil(ctx, e.timeout, synced); err != nil {
		return syncOutcome{}, err
	}
	return syncOutcome{objects: int(added.Load()), keep: inf}, nil
}

// stripping returns newInformer with a transform that clears each object's
// managedFields before the informer stores it (controller-runtime's
// TransformStripManagedFields, a client-go cache.TransformFunc), as
// controllers that keep many objects set it.
func stripping(newInformer newInformerFunc) newInformerFunc {
	return func(cfg *rest.Config, namespace, fieldSelector string) (cache.SharedIndexInformer, error) {
		inf, err := newInformer(cfg, namespace, fieldSelector)
		if err != nil {
			return nil, err
		}
		return inf, inf.SetTransform(crcache.TransformStripManagedFields())
	}
}
