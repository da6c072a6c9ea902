package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/crmanager"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
)

func main() {
	child.Main(func(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
		switch {
		case contender == child.CRCache && resource == child.Widgets:
			return crmanager.Run(ctx, e, widgets)
		case contender == child.CRCacheNamed && resource == child.Secrets:
			return namedGets(ctx, e)
		case contender == child.CRMetadata:
			if gvk, ok := builtin[resource]; ok {
				return metadataCache(ctx, e, gvk)
			}
		}
		return child.Outcome{}, fmt.Errorf("no contender %q of %s", contender, resource)
	})
}

// widgets is cr-cache's source: For(&Widget{}), the Manager's cache, and
// the informer For starts, which GetInformer waits for.
func widgets(mgr manager.Manager, b *builder.Builder, _ *child.Env) (*builder.Builder, client.Reader, func(context.Context) error, error) {
	synced := func(ctx context.Context) error {
		_, err := mgr.GetCache().GetInformer(ctx, &shopv1alpha1.Widget{})
		return err
	}
	return b.For(&shopv1alpha1.Widget{}), mgr.GetClient(), synced, nil
}

// builtin are the built-in kinds of cr-metadata.
var builtin = map[string]schema.GroupVersionKind{
	child.ConfigMaps: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	child.Secrets:    corev1.SchemeGroupVersion.WithKind("Secret"),
	child.Pods:       corev1.SchemeGroupVersion.WithKind("Pod"),
}

// metadataCache runs a Manager whose cache holds the metadata of gvk's
// objects in the namespace: the informer a controller built with
// builder.OnlyMetadata gets (a PartialObjectMetadata object of the kind;
// the cache finds its resource through the Manager's REST mapper and lists
// and watches with client-go's metadata client), until it has synced.
func metadataCache(ctx context.Context, e *child.Env, gvk schema.GroupVersionKind) (child.Outcome, error) {
	mgr, err := ctrl.NewManager(e.Cfg, ctrl.Options{Logger: logr.Discard(),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{e.Namespace: {}}}})
	if err != nil {
		return child.Outcome{}, err
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	inf, err := mgr.GetCache().GetInformer(ctx, obj) // the Manager not started: returns at once
	if err != nil {
		return child.Outcome{}, err
	}
	var added atomic.Int64
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(any) { added.Add(1) }})
	if err != nil {
		return child.Outcome{}, err
	}
	runCtx, stop := context.WithCancel(ctx)
	waitCtx, started := context.WithCancel(ctx) // done too when the Manager stops
	defer started()
	ran := make(chan error, 1)
	go func() {
		err := mgr.Start(runCtx)
		started()
		ran <- err
	}()
	if err := driver.PollUntil(waitCtx, e.Timeout, reg.HasSynced); err != nil {
		stop()
		if merr := <-ran; merr != nil {
			return child.Outcome{}, fmt.Errorf("manager: %w", merr)
		}
		return child.Outcome{}, err
	}
	return child.Outcome{Objects: int(added.Load()), Keep: mgr, Stop: func() error { stop(); return <-ran }}, nil
}
