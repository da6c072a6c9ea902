package crmanager

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

// Source gives the controller b its source of widgets and returns the
// reader its reconciler reads them with, and a wait for the source's
// initial sync.
type Source func(mgr manager.Manager, b *builder.Builder, e *child.Env) (*builder.Builder, client.Reader, func(context.Context) error, error)

// Main is the program's main for the Manager with src.
func Main(src Source) {
	child.Main(func(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
		if resource != child.Widgets {
			return child.Outcome{}, fmt.Errorf("%s syncs widgets, not %s", contender, resource)
		}
		return Run(ctx, e, src)
	})
}

// Run runs the Manager with src until every widget was reconciled once.
func Run(ctx context.Context, e *child.Env, src Source) (child.Outcome, error) {
	scheme := kruntime.NewScheme()
	if err := shopv1alpha1.AddToScheme(scheme); err != nil {
		return child.Outcome{}, err
	}
	mgr, err := ctrl.NewManager(e.Cfg, ctrl.Options{Scheme: scheme, Logger: logr.Discard(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{e.Namespace: {}}}})
	if err != nil {
		return child.Outcome{}, err
	}
	seen := &reconciled{keys: map[string]bool{}, want: e.Want, done: make(chan struct{})}
	b, read, synced, err := src(mgr, ctrl.NewControllerManagedBy(mgr).Named("widget"), e)
	if err != nil {
		return child.Outcome{}, err
	}
	seen.read = read
	if err := b.Complete(seen); err != nil {
		return child.Outcome{}, err
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- mgr.Start(runCtx) }()
	wctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if e.Want == 0 {
		go func() {
			if synced(wctx) == nil {
				close(seen.done)
			}
		}()
	}
	select {
	case <-seen.done:
	case err := <-ran:
		stop()
		return child.Outcome{}, fmt.Errorf("manager: %w", err)
	case <-wctx.Done():
		stop()
		return child.Outcome{}, fmt.Errorf("%d of %d widgets reconciled: %w", seen.count(), e.Want, wctx.Err())
	}
	return child.Outcome{Objects: seen.count(), Note: "every widget reconciled once", Keep: mgr,
		Stop: func() error { stop(); return <-ran }}, nil
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
