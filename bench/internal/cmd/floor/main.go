package main

import (
	"context"
	"fmt"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func main() { child.Main(run) }

func run(ctx context.Context, contender, resource string, e *child.Env) (child.Outcome, error) {
	switch resource {
	case child.ConfigMaps:
		return floor[corev1.ConfigMap](ctx, contender, e)
	case child.Secrets:
		return floor[corev1.Secret](ctx, contender, e)
	case child.Pods, child.ProjPods:
		return floor[corev1.Pod](ctx, contender, e)
	}
	return child.Outcome{}, fmt.Errorf("no floor of %s", resource)
}

// protoObject is a typed Kubernetes object that decodes itself from
// protobuf, as every built-in type does.
type protoObject[E any] interface {
	*E
	metav1.Object
	Unmarshal(data []byte) error
}

// floor runs one of the floors over objects of type E.
func floor[E any, P protoObject[E]](ctx context.Context, contender string, e *child.Env) (child.Outcome, error) {
	switch contender {
	case child.FloorRead:
		return readFloor(ctx, e, nil, nil)
	case child.FloorDecode:
		return readFloor(ctx, e, func(b []byte) error {
			return P(new(E)).Unmarshal(b)
		}, func(b []byte) error {
			obj := P(new(E))
			if err := obj.Unmarshal(b); err != nil {
				return err
			}
			e.Lags.Observe(obj)
			return nil
		})
	case child.FloorWarm, child.FloorWarmFile:
		return warmFloor(ctx, e, func(b []byte) error { return P(new(E)).Unmarshal(b) }, contender == child.FloorWarm)
	case child.KeepAll:
		m := map[string]P{}
		out, err := readFloor(ctx, e, func(b []byte) error {
			obj := P(new(E))
			if err := obj.Unmarshal(b); err != nil {
				return err
			}
			m[obj.GetNamespace()+"/"+obj.GetName()] = obj
			return nil
		}, nil)
		out.Keep = m
		if err == nil && len(m) != out.Objects {
			return out, fmt.Errorf("keep-all: %d ADDED events but %d distinct objects", out.Objects, len(m))
		}
		return out, err
	}
	return child.Outcome{}, fmt.Errorf("unknown floor %q", contender)
}
