package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// The controller-runtime contenders of the CRD part: one Manager, one
// controller of widgets whose reconciler reads the widget it is given;
// with controller-runtime's cache, or with the generated syncer through
// ctrlsyncer. Synced is when every widget was reconciled once.
const (
	crCache  = "cr-cache"
	crSyncer = "cr-syncer"
)

func runManager(ctx context.Context, e *childEnv, viaSyncer bool) (syncOutcome, error) {
	scheme := kruntime.NewScheme()
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return syncOutcome{}, err
	}
	mgr, err := ctrl.NewManager(e.cfg, ctrl.Options{Scheme: scheme, Logger: logr.Discard(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{e.namespace: {}}}})
	if err != nil {
		return syncOutcome{}, err
	}
	seen := &reconciled{keys: map[string]bool{}, want: e.want, done: make(chan struct{})}
	b := ctrl.NewControllerManagedBy(mgr).Named("widget")
	if viaSyncer {
		widgets, err := shopsyncers.NewWidgetSyncer(e.cfg, runtime.WithNamespace(e.namespace))
		if err != nil {
			return syncOutcome{}, err
		}
		if err := mgr.Add(ctrlsyncer.Runnable(widgets)); err != nil {
			return syncOutcome{}, err
		}
		r := ctrlsyncer.NewReader()
		ctrlsyncer.Register(r, widgets.Syncer)
		seen.read = r
		b = b.WatchesRawSource(ctrlsyncer.Source(widgets.Syncer, &handler.TypedEnqueueRequestForObject[*shopv1alpha1.Widget]{}))
	} else {
		seen.read = mgr.GetClient()
		b = b.For(&shopv1alpha1.Widget{})
	}
	if err := b.Complete(seen); err != nil {
		return syncOutcome{}, err
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- mgr.Start(runCtx) }()
	wctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	select {
	case <-seen.done:
	case err := <-ran:
		stop()
		return syncOutcome{}, fmt.Errorf("manager: %w", err)
	case <-wctx.Done():
		stop()
		return syncOutcome{}, fmt.Errorf("%d of %d widgets reconciled: %w", seen.count(), e.want, wctx.Err())
	}
	return syncOutcome{objects: seen.count(), note: "every widget reconciled once", keep: mgr,
		stop: func() error { stop(); return <-ran }}, nil
}

// reconciled reads each widget it is asked for and counts them.
type reconciled struct {
	read client.Reader
	mu   sync.Mutex
	keys map[string]bool
	want int
	done chan struct{}
}

func (r *reconciled) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var w shopv1alpha1.Widget
	if err := r.read.Get(ctx, req.NamespacedName, &w); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.keys[req.String()] {
		r.keys[req.String()] = true
		if len(r.keys) == r.want {
			close(r.done)
		}
	}
	return reconcile.Result{}, nil
}

func (r *reconciled) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.keys)
}
