package main

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
)

// namedGets is cr-cache-named: a Manager whose Client Gets each Secret of
// e.Names, as a controller reads the Secrets its objects point at. The
// first Get starts the cache's informer of every Secret of the namespace
// and waits for its sync; later ones read it. Objects are the names
// found; the informer's updates feed the steady state's lag.
func namedGets(ctx context.Context, e *child.Env) (child.Outcome, error) {
	if len(e.Names) == 0 {
		return child.Outcome{}, fmt.Errorf("%s: no -names", child.CRCacheNamed)
	}
	mgr, err := ctrl.NewManager(e.Cfg, ctrl.Options{Logger: logr.Discard(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{e.Namespace: {}}}})
	if err != nil {
		return child.Outcome{}, err
	}
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- mgr.Start(runCtx) }()
	fail := func(err error) (child.Outcome, error) {
		stop()
		if merr := <-ran; merr != nil {
			return child.Outcome{}, fmt.Errorf("%w (manager: %v)", err, merr)
		}
		return child.Outcome{}, err
	}
	gctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if !mgr.GetCache().WaitForCacheSync(gctx) { // until the cache is started: it holds no informer yet
		return fail(fmt.Errorf("the Manager's cache did not start within %s", e.Timeout))
	}
	found := 0
	for _, name := range e.Names {
		var s corev1.Secret
		err := mgr.GetClient().Get(gctx, client.ObjectKey{Namespace: e.Namespace, Name: name}, &s)
		switch {
		case apierrors.IsNotFound(err): // the idle run's names do not exist
		case err != nil:
			return fail(fmt.Errorf("get %s/%s: %w", e.Namespace, name, err))
		default:
			found++
		}
	}
	inf, err := mgr.GetCache().GetInformer(gctx, &corev1.Secret{}) // the one the first Get started
	if err != nil {
		return fail(err)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
		if o, ok := obj.(metav1.Object); ok {
			e.Lags.Observe(o)
		}
	}}); err != nil {
		return fail(err)
	}
	return child.Outcome{Objects: found, Keep: mgr, Stop: func() error { stop(); return <-ran }}, nil
}
