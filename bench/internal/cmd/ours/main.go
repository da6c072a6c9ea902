package main

import (
	"context"
	"fmt"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/oursrun"
	coresyncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

func main() { child.Main(run) }

// run runs our syncer of resource with the options contender names; for
// ours-projected, the projected syncer of the projection part's pods
// (NodePod: a node agent's fields, labels among them, which the steady
// state's lag handler reads) or widgets (WidgetView), each with the
// indexes of the full syncer it is measured against, or of the metadata
// part's ConfigMaps (ConfigMapMeta: labels, annotations and owners, which
// asks for PartialObjectMetadata).
func run(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
	opts, err := options(contender)
	if err != nil {
		return child.Outcome{}, err
	}
	projected := contender == child.OursProjected
	switch {
	case resource == child.ConfigMaps && projected:
		return oursrun.Run(ctx, e, newConfigMapMetaSyncer, opts...)
	case resource == child.ConfigMaps:
		return oursrun.Run(ctx, e, newConfigMapSyncer, opts...)
	case resource == child.Secrets:
		return oursrun.Run(ctx, e, newSecretSyncer, opts...)
	case resource == child.ProjPods && projected:
		return oursrun.Run(ctx, e, newNodePodSyncer, opts...)
	case resource == child.Pods || resource == child.ProjPods:
		return oursrun.Run(ctx, e, newPodSyncer, opts...)
	case resource == child.ProjWidgets && projected:
		return oursrun.Run(ctx, e, newWidgetViewSyncer, opts...)
	case resource == child.Widgets || resource == child.ProjWidgets:
		return oursrun.Run(ctx, e, newWidgetSyncer, opts...)
	}
	return child.Outcome{}, fmt.Errorf("no syncer of %s", resource)
}

// options are the runtime options of a contender of ours.
func options(contender string) ([]runtime.Option, error) {
	switch contender {
	case child.Ours, child.OursSlow, child.OursWarm, child.OursWarmNewServer, child.OursProjected:
		return nil, nil
	case child.OursStrip:
		return []runtime.Option{runtime.WithStripManagedFields()}, nil
	case child.OursCompressed:
		return []runtime.Option{runtime.WithCompression()}, nil
	case child.OursNamed:
		return nil, nil // oursrun.Run syncs the names of -names
	case child.OursList, child.OursNamedList:
		return []runtime.Option{runtime.WithoutWatchList()}, nil
	case child.OursWatchList:
		return []runtime.Option{runtime.WithWatchList()}, nil
	case child.OursResync:
		return []runtime.Option{runtime.WithResyncPeriod(child.MechanismPeriod)}, nil
	case child.OursDrift:
		return []runtime.Option{runtime.WithDriftCheck(child.MechanismPeriod)}, nil
	case child.OursSnapshot: // the file is the parent's -snapshot
		return []runtime.Option{runtime.WithSnapshotInterval(child.MechanismPeriod)}, nil
	}
	return nil, fmt.Errorf("unknown contender %q", contender)
}

// newSecretSyncer is a syncer of Secrets over the runtime alone (the
// examples generate none).
func newSecretSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.Secret], error) {
	return runtime.New[*corev1.Secret](cfg, runtime.Resource{
		Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true,
		NewList: func() kruntime.Object { return &corev1.SecretList{} },
	}, opts...)
}

// The generated constructors, each giving its runtime.Syncer.

func newConfigMapSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.ConfigMap], error) {
	s, err := coresyncers.NewConfigMapSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

func newConfigMapMetaSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*coresyncers.ConfigMapMeta], error) {
	s, err := coresyncers.NewConfigMapMetaSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

func newPodSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*corev1.Pod], error) {
	s, err := coresyncers.NewPodSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

func newNodePodSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*coresyncers.NodePod], error) {
	s, err := coresyncers.NewNodePodSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

func newWidgetSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*shopv1alpha1.Widget], error) {
	s, err := shopsyncers.NewWidgetSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}

func newWidgetViewSyncer(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*shopsyncers.WidgetView], error) {
	s, err := shopsyncers.NewWidgetViewSyncer(cfg, opts...)
	if err != nil {
		return nil, err
	}
	return s.Syncer, nil
}
