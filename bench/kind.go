package main

import (
	"context"
	"fmt"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// childKind runs the contenders of one resource type in a child.
type childKind interface {
	run(ctx context.Context, contender string, e *childEnv) (syncOutcome, error)
}

// childEnv is what a contender gets to work with.
type childEnv struct {
	cfg       *rest.Config
	namespace string
	plural    string
	timeout   time.Duration // longest wait for sync
	lags      *lagObserver  // handlers report updates here
	probe     *probe        // counts restarts and queue depth in the steady state
	slow      *slowHandler  // the second handler; nil for contenders without one
	snapshot  string        // our syncer's snapshot file; "" for none
	shard     int           // with shards > 0: our syncer syncs shard shard of shards
	shards    int
	want      int // the objects the resource holds
	// fieldSelector: every contender syncs only what it selects.
	fieldSelector string
}

// syncOutcome is what a contender reports once synced.
type syncOutcome struct {
	objects int
	note    string // e.g. the mode our syncer used
	// storeBytes is what our syncer's store says it holds (Store.Bytes).
	storeBytes int64
	keep       any // kept alive until the child exits
	// keys returns "namespace/name resourceVersion" of each stored object;
	// nil for a contender that does not show its store.
	keys func() []string
	// stop, when not nil, ends the contender before the child exits.
	stop func() error
}

// protoObject is a typed Kubernetes object that decodes itself from
// protobuf, as every built-in type does.
type protoObject[E any] interface {
	*E
	runtime.Object
	Unmarshal(data []byte) error
}

// kind binds the contenders to one Go type.
type kind[E any, P protoObject[E]] struct {
	newSyncer   func(cfg *rest.Config, opts ...runtime.Option) (*runtime.Syncer[P], error)
	newInformer informerFunc
}

func (k kind[E, P]) run(ctx context.Context, contender string, e *childEnv) (syncOutcome, error) {
	switch contender {
	case floorRead:
		return readFloor(ctx, e, nil, nil)
	case floorDecode:
		return readFloor(ctx, e, func(b []byte) error {
			return P(new(E)).Unmarshal(b)
		}, func(b []byte) error {
			obj := P(new(E))
			if err := obj.Unmarshal(b); err != nil {
				return err
			}
			e.lags.observe(obj)
			return nil
		})
	case keepAll:
		m := map[string]P{}
		out, err := readFloor(ctx, e, func(b []byte) error {
			obj := P(new(E))
			if err := obj.Unmarshal(b); err != nil {
				return err
			}
			m[obj.GetNamespace()+"/"+obj.GetName()] = obj
			return nil
		}, nil)
		out.keep = m
		if err == nil && len(m) != out.objects {
			return out, fmt.Errorf("keep-all: %d ADDED events but %d distinct objects", out.objects, len(m))
		}
		return out, err
	case clientGoWatch, clientGoList, clientGoSlow:
		return runInformer[P](ctx, e, typedInformer(k.newInformer))
	case clientGoStrip:
		return runInformer[P](ctx, e, stripping(typedInformer(k.newInformer)))
	case ours, oursSlow, oursWarm, oursWarmNewServer:
		return runOurs(ctx, e, k.newSyncer)
	case oursStrip:
		return runOurs(ctx, e, k.newSyncer, runtime.WithStripManagedFields())
	case oursCompressed:
		return runOurs(ctx, e, k.newSyncer, runtime.WithCompression())
	case oursList:
		return runOurs(ctx, e, k.newSyncer, runtime.WithoutWatchList())
	case oursWatchList:
		return runOurs(ctx, e, k.newSyncer, runtime.WithWatchList())
	}
	return syncOutcome{}, fmt.Errorf("unknown contender %q", contender)
}
