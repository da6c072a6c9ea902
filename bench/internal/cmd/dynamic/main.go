package main

import (
	"context"
	"fmt"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/oursrun"
	"github.com/syncer-gen/syncer-gen/dynamicsyncer"
	"github.com/syncer-gen/syncer-gen/runtime"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
)

func main() { child.Main(run) }

// kinds are the built-in resources the program syncs: a program that knows
// a resource's name, kind and scope writes its runtime.Resource, as these,
// where one that does not asks a resolve.Resolver (package dynamicsyncer/resolve) (discovery).
var kinds = map[string]runtime.Resource{
	child.ConfigMaps: {Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
	child.Secrets:    {Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true},
	child.Pods:       {Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true},
}

func run(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
	res, ok := kinds[resource]
	if !ok {
		return child.Outcome{}, fmt.Errorf("no syncer of %s", resource)
	}
	switch contender {
	case child.OursMetadata:
		return oursrun.Run(ctx, e, func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*metav1.PartialObjectMetadata], error) {
			return dynamicsyncer.NewMetadata(cfg, res, opts...)
		})
	case child.OursMetadataGets:
		return metadataGets(ctx, e, res)
	case child.OursUnstructured:
		return oursrun.Run(ctx, e, func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[*unstructured.Unstructured], error) {
			return dynamicsyncer.NewUnstructured(cfg, res, opts...)
		})
	}
	return child.Outcome{}, fmt.Errorf("unknown contender %q", contender)
}
