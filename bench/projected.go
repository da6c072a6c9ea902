package main

import (
	"context"

	"k8s.io/client-go/rest"

	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"

	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
)

// The projected syncers of the projection part, run by the ours-projected
// contender: the examples' NodePod (examples/builtin/kinds: a node agent's
// fields of a Pod, labels among them, which the steady state's lag
// handler reads) and WidgetView (examples/crd/views), each with the
// indexes of the full syncer it is measured against.

func runProjectedPods(ctx context.Context, e *childEnv) (syncOutcome, error) {
	return runOurs(ctx, e, func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*coresyncers.NodePod], error) {
		s, err := coresyncers.NewNodePodSyncer(cfg, opts...)
		if err != nil {
			return nil, err
		}
		return s.Syncer, nil
	})
}

func runProjectedWidgets(ctx context.Context, e *childEnv) (syncOutcome, error) {
	return runOurs(ctx, e, func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*shopsyncers.WidgetView], error) {
		s, err := shopsyncers.NewWidgetViewSyncer(cfg, opts...)
		if err != nil {
			return nil, err
		}
		return s.Syncer, nil
	})
}
