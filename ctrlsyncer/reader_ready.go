package ctrlsyncer

import (
	"context"
	"fmt"
	"reflect"
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

// ready returns once the syncer of s has synced. It fails at once with a
// cache.ErrCacheNotStarted when the syncer has not started, and with a
// Timeout error saying why the syncer has not synced when ctx ends first,
// as controller-runtime's cache does.
func (s *store) ready(ctx context.Context) error {
	if s.syncer.HasSynced() {
		return nil
	}
	res := s.syncer.Resource()
	if !s.started() {
		return fmt.Errorf("ctrlsyncer: the syncer of %s has not started (run it: NewClient's syncers start with the Manager, others with Runnable, a syncerset or Run): %w",
			res, &cache.ErrCacheNotStarted{})
	}
	tick := time.NewTicker(syncPoll)
	defer tick.Stop()
	for !s.syncer.HasSynced() {
		select {
		case <-ctx.Done():
			return apierrors.NewTimeoutError(fmt.Sprintf("failed waiting for the syncer of %s to sync (%v): %s", res, ctx.Err(), whyNotSynced(s.syncer, false)), 0)
		case <-tick.C:
		}
	}
	return nil
}

// whyNotSynced tells why s has not synced, in syncerset's words: its last
// failure and what it means, or how far it has come.
func whyNotSynced(s syncerState, handlersBehind bool) syncerset.NotSynced {
	return syncerset.NotSynced{Resource: s.Resource().String(), Err: s.LastError(), Progress: s.Progress(), HandlersBehind: handlersBehind}
}

// readyFor is ready for the syncer of obj's type.
func (r *Reader) readyFor(ctx context.Context, obj client.Object) error {
	s := r.storeOf(reflect.TypeOf(obj))
	if s == nil {
		return noSyncer(obj)
	}
	return s.ready(ctx)
}
