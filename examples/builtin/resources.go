package main

import (
	"context"
	"io"
	"slices"
	"strings"

	appsv1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/apps/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// followFunc syncs one resource as the flags say.
type followFunc func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error

// resources maps each --resource value to its generated syncer; follow
// does the rest, the same for all.
var resources = map[string]followFunc{
	"pods": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewPodSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, describePod, podsPerNode(s.Store()))
	},
	"configmaps": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewConfigMapSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, describeConfigMap, nil)
	},
	"nodes": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewNodeSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, describeNode, nil)
	},
	"deployments": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := appsv1syncers.NewDeploymentSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, describeDeployment, nil)
	},
}

// syncerOptions are the runtime options the flags ask for.
func syncerOptions(o options) []runtime.Option {
	opts := []runtime.Option{runtime.WithNamespace(o.namespace)}
	if o.snapshot != "" {
		opts = append(opts, runtime.WithSnapshot(o.snapshot))
	}
	return opts
}

// resourceNames returns the --resource values, e.g. "configmaps|deployments|nodes|pods".
func resourceNames() string {
	names := make([]string, 0, len(resources))
	for n := range resources {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, "|")
}
