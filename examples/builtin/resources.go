package main

import (
	"context"
	"io"
	"slices"
	"strings"

	appsv1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/apps/v1"
	corev1syncers "github.com/syncer-gen/syncer-gen/examples/builtin/syncers/core/v1"
	"github.com/syncer-gen/syncer-gen/runtime"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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
		store := s.Store()
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, show[*corev1.Pod]{
			describe: describePod,
			summary:  podsPerNode(store.List, store.ByNodeName, podNode),
		})
	},
	// Pods as a node agent reads them: the NodePod projection
	// (kinds.NodePod), whose decoders keep only the fields it reads; with
	// --node, only that node's pods.
	"nodepods": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewNodePodSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		store := s.Store()
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, show[*corev1syncers.NodePod]{
			describe: describeNodePod,
			changes:  changesNodePod,
			summary:  podsPerNode(store.List, store.ByNodeName, nodePodNode),
		})
	},
	"configmaps": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewConfigMapSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, show[*corev1.ConfigMap]{describe: describeConfigMap})
	},
	"nodes": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := corev1syncers.NewNodeSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, show[*corev1.Node]{describe: describeNode})
	},
	"deployments": func(ctx context.Context, cfg *rest.Config, o options, stdout, stderr io.Writer) error {
		s, err := appsv1syncers.NewDeploymentSyncer(cfg, syncerOptions(o)...)
		if err != nil {
			return err
		}
		return follow(ctx, cfg, s.Syncer, o, stdout, stderr, show[*appsv1.Deployment]{describe: describeDeployment})
	},
}

// syncerOptions are the runtime options the flags ask for.
func syncerOptions(o options) []runtime.Option {
	opts := []runtime.Option{runtime.WithNamespace(o.namespace)}
	if o.snapshot != "" {
		opts = append(opts, runtime.WithSnapshot(o.snapshot))
	}
	if o.node != "" {
		// A node agent's pods: the runtime syncs them by LIST + WATCH, which
		// costs the server less than WatchList under a field selector.
		opts = append(opts, runtime.WithFieldSelector("spec.nodeName="+o.node))
	}
	return opts
}

// resourceNames returns the --resource values, e.g. "configmaps|deployments|nodepods|nodes|pods".
func resourceNames() string {
	names := make([]string, 0, len(resources))
	for n := range resources {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, "|")
}
