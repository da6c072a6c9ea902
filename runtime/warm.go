package runtime

import (
	"context"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// fetchers is how many GETs a warm start keeps in flight.
const fetchers = 16

// A warm start brings the objects of a snapshot up to date at little cost
// to the server, and ends where a cold start ends: handlers get
// OnResyncStarted, OnAdd for each object, OnSync, then live events, and at
// OnSync the store is the server's state at one resourceVersion.
//
//  1. A consistent metadata-only LIST gives, at its resourceVersion L, the
//     name, UID and resourceVersion of every object. A snapshot object with
//     the same UID and resourceVersion is the object's state at L (a
//     resourceVersion names one state of one object): it is stored as is.
//     Snapshot objects missing from the LIST, or there under another UID,
//     are gone: handlers get OnDelete(obj, DeletionInferred).
//  2. The other listed objects are fetched by GET, in a state not older
//     than L (served from the watch cache). The snapshot is read from disk
//     while the LIST is under way.
//  3. A watch from L delivers every change after L, in order. A fetched
//     state newer than L (a change after L) makes the store run ahead of L
//     for that object until the watch delivers that change; a GET that
//     found nothing (a deletion after L) until the watch delivers the
//     deletion. Once both have happened for every such object, the store is
//     the server's state at the last event applied: that is OnSync.
//     Events older than the stored state, for an object fetched ahead, are
//     dropped (deletions included).
//
// When more than a quarter of the objects changed, a WatchList costs the
// server less than the GETs: the resync goes on cold. Any failure also
// makes the rest of the resync cold; what was restored so far stays, as
// after a failed WatchList attempt.

// fetch is one object to GET during a warm start.
type fetch[T Object] struct {
	key    Key
	old    T // in the snapshot, under the UID the LIST gave, if hadOld
	hadOld bool
	got    T
	err    error
}

// listed is an object of the metadata-only LIST.
type listed struct {
	key Key
	uid types.UID
	rv  string
}

// warmSync runs a warm start from the snapshot loading into snap. cold is
// true when the resync is to go on with a cold sync in this cycle.
func (s *Syncer[T]) warmSync(ctx context.Context, loading <-chan map[Key]T) (res result, cold bool) {
	started := time.Now()
	s.beginResync()
	var items []listed
	var rv, cont string
	for {
		pageRV, next, remaining, err := s.src.metadataList(ctx, cont, s.cfg.pageSize, func(m *metav1.PartialObjectMetadata) {
			items = append(items, listed{Key{Namespace: m.Namespace, Name: m.Name}, m.UID, m.ResourceVersion})
		})
		if err != nil {
			return result{op: "list", err: err}, false
		}
		if cont == "" && remaining >= 0 {
			s.progress.estimate.Store(int64(len(items)) + remaining)
		}
		rv, cont = pageRV, next
		if cont == "" {
			break
		}
	}
	var snap map[Key]T
	select {
	case snap = <-loading:
	case <-ctx.Done():
		return result{op: "list", err: ctx.Err()}, false
	}
	if snap == nil { // not usable: logged
		return result{}, true
	}
	var fetches []*fetch[T]
	kept, gone := 0, 0
	for _, m := range items {
		old, ok := snap[m.key]
		delete(snap, m.key)
		switch {
		case ok && old.GetUID() == m.uid && old.GetResourceVersion() == m.rv:
			s.cfg.metrics.EventReceived(watch.Added)
			s.cache.restore(old)
			kept++
		case ok && old.GetUID() != m.uid:
			s.cache.vanished(old)
			gone++
			fetches = append(fetches, &fetch[T]{key: m.key})
		default:
			fetches = append(fetches, &fetch[T]{key: m.key, old: old, hadOld: ok})
		}
	}
	for _, o := range snap {
		s.cache.vanished(o)
		gone++
	}
	s.progress.received.Store(int64(kept))
	total := kept + len(fetches)
	s.progress.estimate.Store(int64(total))
	log := s.cfg.logger.WithValues("resource", s.res.String())
	if len(fetches) > total/4 && len(fetches) > fetchers {
		log.Info("warm start: most objects changed; a full sync costs the server less", "unchanged", kept, "changed", len(fetches), "gone", gone)
		return result{}, true
	}
	log.V(1).Info("warm start", "unchanged", kept, "fetching", len(fetches), "gone", gone, "resourceVersion", rv)
	pending, err := s.fetch(ctx, fetches, rv)
	if err != nil {
		return result{op: "get", err: err}, false
	}
	s.rv = rv
	s.warm = &warmState{pending: pending, objects: total, started: started}
	s.warmEvent(nil, "")
	return s.watchFrom(ctx), false
}

// fetch GETs the objects of fetches in a state not older than rv and stores
// them; it returns, for each whose state is not rv's, the resourceVersion
// the watch from rv must reach for it ("" when the watch must deliver its
// deletion).
func (s *Syncer[T]) fetch(ctx context.Context, fetches []*fetch[T], rv string) (map[Key]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *fetch[T])
	done := make(chan *fetch[T])
	var wg sync.WaitGroup
	for range min(fetchers, len(fetches)) {
		wg.Go(func() {
			for f := range work {
				f.got, f.err = s.src.get(ctx, f.key, rv)
				done <- f
			}
		})
	}
	go func() {
		defer close(work)
		for _, f := range fetches {
			select {
			case work <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	pending := map[Key]string{}
	var firstErr error
	received := s.progress.received.Load()
	for f := range done {
		switch {
		case firstErr != nil:
		case apierrors.IsNotFound(f.err):
			if f.hadOld {
				s.cache.vanished(f.old)
			}
			pending[f.key] = ""
		case f.err != nil:
			firstErr = f.err
			cancel()
		default:
			if f.hadOld && f.got.GetUID() != f.old.GetUID() {
				s.cache.vanished(f.old) // replaced by another object of that name since
			}
			s.cfg.metrics.EventReceived(watch.Added)
			s.cache.upsert(f.got)
			if compareRV(f.got.GetResourceVersion(), rv) > 0 {
				pending[f.key] = f.got.GetResourceVersion()
			}
			received++
			s.progress.received.Store(received)
		}
	}
	return pending, firstErr
}

// warmState is a warm start waiting for the watch to bring the objects
// fetched ahead of the LIST's resourceVersion back in step.
type warmState struct {
	pending map[Key]string // see fetch
	objects int
	started time.Time
}

// warmEvent notes an event of the watch that follows a warm start's LIST
// (nil: none yet), and completes the sync once no object is ahead.
func (s *Syncer[T]) warmEvent(obj Object, typ watch.EventType) {
	w := s.warm
	if w == nil {
		return
	}
	if obj != nil {
		k := KeyOf(obj)
		if want, ok := w.pending[k]; ok &&
			(want == "" && typ == watch.Deleted || want != "" && compareRV(obj.GetResourceVersion(), want) >= 0) {
			delete(w.pending, k)
		}
	}
	if len(w.pending) == 0 {
		s.warm = nil
		s.synced(ModeWarm, w.objects, w.started)
	}
}
