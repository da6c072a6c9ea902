package ctrlsyncer

import (
	"context"
	"errors"
	"sync"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/syncer-gen/syncer-gen/runtime"
	"github.com/syncer-gen/syncer-gen/syncerset"
)

// Source returns the events of syncer s as a controller-runtime source:
// each goes through the predicates, then to h, which adds requests to the
// controller's queue. It must be started once; WaitForSync returns once
// its handler got the syncer's OnSync. The objects h and the predicates
// see are the store's: they must not modify them. Its String names the
// resource, as a Manager prints it; For and Owns make the usual ones.
func Source[T client.Object, R comparable](s *runtime.Syncer[T], h handler.TypedEventHandler[T, R], preds ...predicate.TypedPredicate[T]) source.TypedSyncingSource[R] {
	return &syncerSource[T, R]{s: s, h: h, preds: preds, started: make(chan struct{})}
}

type syncerSource[T client.Object, R comparable] struct {
	s       *runtime.Syncer[T]
	h       handler.TypedEventHandler[T, R]
	preds   []predicate.TypedPredicate[T]
	once    sync.Once
	started chan struct{}
	reg     *runtime.Registration
}

// Start adds a handler to the syncer and returns at once; the handler is
// removed when ctx is done, and ends when the syncer stops.
func (src *syncerSource[T, R]) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[R]) error {
	err := errors.New("ctrlsyncer: Source started twice")
	src.once.Do(func() {
		err = nil
		src.reg = src.s.AddHandler(src.handler(ctx, q), runtime.WithHandlerName("controller-runtime"))
		close(src.started)
		go func() {
			select {
			case <-ctx.Done():
				src.reg.Remove()
			case <-src.reg.Done(): // the syncer stopped (RemoveSyncer)
			}
		}()
	})
	return err
}

// String names the source by its resource, e.g. "syncer source:
// widgets.shop.example.com/v1alpha1": what a Manager prints of a source
// that did not sync.
func (src *syncerSource[T, R]) String() string { return "syncer source: " + src.s.Resource().String() }

// WaitForSync waits until the source was started and its handler got
// OnSync, or ctx is done. Then, as controller-runtime's own sources do, it
// returns nil if ctx was cancelled (the Manager is stopping), else a
// *syncerset.NotSyncedError that says why the syncer has not synced: its
// last failure (not-found: is its CRD installed?, forbidden...) or how far
// it has come.
func (src *syncerSource[T, R]) WaitForSync(ctx context.Context) error {
	select {
	case <-src.started:
		if src.reg.WaitForSync(ctx) == nil {
			return nil
		}
	case <-ctx.Done():
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil
	}
	behind := src.s.HasSynced() // the store synced, this source's handler has not got it all
	return &syncerset.NotSyncedError{Total: 1, Resources: []syncerset.NotSynced{whyNotSynced(src.s, behind)}, Cause: ctx.Err()}
}

// handler turns the syncer's calls into controller-runtime's events, as
// its Kind source does from an informer's: an object of a resync's list
// (the first sync, a relist, a warm start's, or stored when the source
// started) is a create event with IsInInitialList, which controller-runtime's
// handlers enqueue at low priority into a priority queue (the default for a
// Manager's controllers); a resync period's update has old and new at the
// same resourceVersion, which they enqueue at low priority too.
func (src *syncerSource[T, R]) handler(ctx context.Context, q workqueue.TypedRateLimitingInterface[R]) runtime.Handler[T] {
	create := func(o T, initial bool) {
		e := event.TypedCreateEvent[T]{Object: o, IsInInitialList: initial}
		for _, p := range src.preds {
			if !p.Create(e) {
				return
			}
		}
		src.h.Create(ctx, e, q)
	}
	return runtime.HandlerFuncs[T]{
		AddFunc:        func(o T) { create(o, false) },
		InitialAddFunc: func(o T) { create(o, true) },
		UpdateFunc: func(old, o T) {
			e := event.TypedUpdateEvent[T]{ObjectOld: old, ObjectNew: o}
			for _, p := range src.preds {
				if !p.Update(e) {
					return
				}
			}
			src.h.Update(ctx, e, q)
		},
		DeleteFunc: func(o T, how runtime.Deletion) {
			e := event.TypedDeleteEvent[T]{Object: o, DeleteStateUnknown: how == runtime.DeletionInferred}
			for _, p := range src.preds {
				if !p.Delete(e) {
					return
				}
			}
			src.h.Delete(ctx, e, q)
		},
	}
}
