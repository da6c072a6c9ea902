package ctrlsyncer

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/syncer-gen/syncer-gen/syncerset"
)

// syncPoll is how often a read waiting for a sync looks again. The wait
// is on the store alone, as the cache's is on its informer: not on the
// syncer's handlers, so that a handler may read too.
const syncPoll = 10 * time.Millisecond

// errUnknownNamespace: a read of a namespace the syncer does not cover.
var errUnknownNamespace = errors.New("unknown namespace for the cache")

// ready returns once the syncer of s has synced the objects of namespace
// ns (of every namespace it covers, for ""). It fails at once with
// errUnknownNamespace for a namespace the syncer does not cover, as
// controller-runtime's cache of some namespaces does, with the cache's
// own *cache.ErrCacheNotStarted when the syncer has not started, and,
// when ctx ends first, with the cache's Timeout error (its status, and
// its words, "failed waiting for *v1.Pod Informer to sync") followed by
// why the syncer has not synced.
func (s *store) ready(ctx context.Context, ns string) error {
	covered, synced := s.covers(ns)
	if !covered {
		return errUnknownNamespace
	}
	if synced {
		return nil
	}
	if !s.started() {
		return &cache.ErrCacheNotStarted{} // the cache's; NewClient's syncers start with the Manager, others with Runnable, a syncerset or Run
	}
	tick := time.NewTicker(syncPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			why := whyNotSynced(s.syncer, false).String()
			if ns != "" && s.syncer.HasSynced() {
				why = fmt.Sprintf("namespace %s: %s", ns, why)
			}
			return apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for %s Informer to sync: %s", s.typ, why), 0)
		case <-tick.C:
		}
		if covered, synced = s.covers(ns); !covered {
			return errUnknownNamespace
		} else if synced {
			return nil
		}
	}
}

// readyKey is ready for the object of key: for a syncer over names, once
// its name has synced (named.go).
func (s *store) readyKey(ctx context.Context, key client.ObjectKey) error {
	if s.names != nil {
		return s.names.ensure(ctx, s.typ, key)
	}
	return s.ready(ctx, key.Namespace)
}

// whyNotSynced tells why s has not synced, in syncerset's words: its last
// failure and what it means, or how far it has come.
func whyNotSynced(s syncerState, handlersBehind bool) syncerset.NotSynced {
	return syncerset.NotSynced{Resource: s.Resource().String(), Err: s.LastError(), Progress: s.Progress(), HandlersBehind: handlersBehind}
}

// readyFor is ready for the object of key of the syncer of obj's type.
func (r *Reader) readyFor(ctx context.Context, obj client.Object, key client.ObjectKey) error {
	s := r.storeOf(kindOf(obj))
	if s == nil {
		return noSyncer(obj)
	}
	return s.readyKey(ctx, key)
}
