package main

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/crmanager"
	"github.com/syncer-gen/syncer-gen/ctrlsyncer"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
)

func main() {
	crmanager.Main(func(mgr manager.Manager, b *builder.Builder, e *child.Env) (*builder.Builder, client.Reader, func(context.Context) error, error) {
		widgets, err := shopsyncers.NewWidgetSyncer(e.Cfg, runtime.WithNamespace(e.Namespace))
		if err != nil {
			return nil, nil, nil, err
		}
		if err := mgr.Add(ctrlsyncer.Runnable(widgets)); err != nil {
			return nil, nil, nil, err
		}
		r := ctrlsyncer.NewReader()
		ctrlsyncer.Register(r, widgets.Syncer)
		return b.WatchesRawSource(ctrlsyncer.Source(widgets.Syncer, &handler.TypedEnqueueRequestForObject[*shopv1alpha1.Widget]{})),
			r, widgets.WaitForSync, nil
	})
}
