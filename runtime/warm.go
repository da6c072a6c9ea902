package runtime

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// fetchers is how many GETs a warm start keeps in flight.
const fetchers = 16

// metadataPages is how many times larger than a page of objects
// (WithPageSize) a page of the metadata-only LIST is: its items are names
// and versions, a tenth of an object or less, so that such a page costs
// the server and the Syncer about what a page of objects does, in a tenth
// of the round trips (20,000 objects: 0.12 s instead of 0.25 s).
const metadataPages = 10

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
//     are gone: handlers get OnDelete(obj, DeletionInferred). The snapshot
//     is read from disk while the LIST is under way.
//  2. Where the server still has the snapshot's resourceVersion S (its
//     watch cache keeps some minutes of events), a watch from S delivers
//     every change since, in order, each object's state at L among them.
//     Events up to L are applied only when they are the state the LIST
//     gave for their object: the store goes from the snapshot straight to
//     the state at L, and handlers never see an object the LIST showed gone.
//     Once every listed state that the snapshot lacked has arrived, the
//     store is the state at L: that is OnSync. Events after L are applied
//     as after any sync. The watch is the live watch: no object is read
//     twice, and the server sends only what changed.
//  3. Where it does not (410 Gone: the snapshot is older than the server's
//     window, or the server restarted), the objects whose state the
//     snapshot lacks are fetched by GET in a state not older than L, and a
//     watch from L follows. A fetched state newer than L makes the store
//     run ahead of L for that object until the watch delivers that change;
//     a GET that found nothing (a deletion after L) until the watch
//     delivers the deletion. Once both have happened for every such
//     object, the store is the state at the last event applied: OnSync.
//     Events older than the stored state are dropped, deletions included.
//
// When more than a quarter of the objects changed, a WatchList costs the
// server less than the catching up: the resync goes on cold. A failed LIST
// is tried again, warm; any later failure makes the rest of the resync
// cold, and what was restored so far stays, as after a failed WatchList
// attempt.

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

// warmState is a warm start catching up with the server.
type warmState[T Object] struct {
	list string // L, the metadata-only LIST's resourceVersion
	// pending holds, for each object the store is not in step with, what
	// the watch must still deliver: a state at least as new as the
	// resourceVersion given, or, for "", a deletion.
	pending map[Key]string
	// fetches are what the GETs would read if the watch from the
	// snapshot's resourceVersion cannot be had.
	fetches []*fetch[T]
	// fromSnapshot: the watch runs from the snapshot's resourceVersion and
	// has not yet passed L, so events up to L are filtered (see admits).
	fromSnapshot bool
	synced       bool
	objects      int
	started      time.Time
}

// errWarmIncomplete: the server broke the watch's ordering promise.
var errWarmIncomplete = errors.New("warm start: the watch from the snapshot's resourceVersion passed the LIST's without delivering every change up to it")

// warmSync runs a warm start from the snapshot loading into snap. cold is
// true when the resync is to go on with a cold sync in this cycle.
func (s *Syncer[T]) warmSync(ctx context.Context, loading <-chan loaded[T]) (res result, cold bool) {
	started := time.Now()
	s.beginResync()
	var items []listed
	var rv, cont string
	var buf bytes.Buffer
	for {
		page, err := s.src.metadataList(ctx, cont, s.cfg.pageSize*metadataPages, &buf, func(l listed) { items = append(items, l) })
		if err != nil {
			s.snap = loading // nothing of it used yet: the next attempt starts warm too
			return result{op: "list", err: err}, false
		}
		if cont == "" && page.remaining >= 0 {
			n := int64(len(items)) + page.remaining
			s.expect(n)
			if room := int(min(n, maxReserve)) - len(items); room > 0 { // the server's count, bounded as the store's
				items = slices.Grow(items, room)
			}
		}
		rv, cont = page.rv, page.next
		if cont == "" {
			break
		}
	}
	var snap loaded[T]
	select {
	case snap = <-loading:
	case <-ctx.Done():
		return result{op: "list", err: ctx.Err()}, false
	}
	if snap.objs == nil { // not usable: logged
		return result{}, true
	}
	w := &warmState[T]{list: rv, pending: map[Key]string{}, started: started}
	kept, gone := 0, 0
	for _, m := range items {
		old, ok := snap.objs[m.key]
		delete(snap.objs, m.key)
		switch {
		case ok && old.GetUID() == m.uid && old.GetResourceVersion() == m.rv:
			s.cfg.metrics.EventReceived(watch.Added)
			s.cache.restore(old)
			kept++
			continue
		case ok && old.GetUID() != m.uid:
			s.cache.vanished(old)
			gone++
			w.fetches = append(w.fetches, &fetch[T]{key: m.key})
		default:
			w.fetches = append(w.fetches, &fetch[T]{key: m.key, old: old, hadOld: ok})
		}
		w.pending[m.key] = m.rv
	}
	for _, o := range snap.objs {
		s.cache.vanished(o)
		gone++
	}
	s.progress.received.Store(int64(kept))
	w.objects = kept + len(w.fetches)
	s.progress.estimate.Store(int64(w.objects))
	log := s.cfg.logger.WithValues("resource", s.res.String())
	if len(w.fetches) > w.objects/4 && len(w.fetches) > fetchers {
		log.Info("warm start: most objects changed; a full sync costs the server less", "unchanged", kept, "changed", len(w.fetches), "gone", gone)
		return result{}, true
	}
	log.V(1).Info("warm start", "unchanged", kept, "changed", len(w.fetches), "gone", gone,
		"listResourceVersion", rv, "snapshotResourceVersion", snap.rv)
	s.warm = w
	// A snapshot newer than the LIST (etcd restored from a backup) or of
	// unknown resourceVersion cannot be watched from.
	if snap.rv != "" && compareRV(snap.rv, rv) <= 0 {
		w.fromSnapshot = true
		s.rv = snap.rv
		s.warmEvent(nil, "")
		return s.warmWatch(ctx), false
	}
	return s.warmFetch(ctx), false
}

// warmWatch watches during a warm start. When the server no longer has the
// snapshot's resourceVersion before the store caught up, it fetches what
// the store still lacks instead and watches from the LIST.
func (s *Syncer[T]) warmWatch(ctx context.Context) result {
	res := s.watchFrom(ctx)
	if w := s.warm; w == nil || !w.fromSnapshot || w.synced || res.err == nil || !isExpired(res.err) {
		return res
	}
	s.cfg.logger.V(1).Info("warm start: the server no longer has the snapshot's resourceVersion; fetching what changed",
		"resource", s.res.String(), "resourceVersion", s.rv, "err", res.err.Error())
	return s.warmFetch(ctx)
}

// warmFetch GETs the objects the store lacks in a state not older than the
// LIST's, then watches from the LIST.
func (s *Syncer[T]) warmFetch(ctx context.Context) result {
	w := s.warm
	todo := w.fetches[:0]
	for _, f := range w.fetches {
		if _, ok := w.pending[f.key]; ok {
			todo = append(todo, f)
		}
	}
	w.fetches, w.fromSnapshot = nil, false
	pending, err := s.fetch(ctx, todo, w.list)
	if err != nil {
		s.rv, s.warm = "", nil // the resync goes on cold
		return result{op: "get", err: err}
	}
	w.pending = pending
	s.rv = w.list
	s.warmEvent(nil, "")
	return s.watchFrom(ctx)
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

// admits tells whether the event of key k at resourceVersion rv, up to L,
// of the watch from the snapshot is to be applied: only the state the LIST
// gave for an object the store lacks is. The events before it lead to that
// state, every other event up to L is of an object whose state at L the
// store has already (unchanged, or gone), and a bookmark up to L tells
// nothing the LIST did not.
func (w *warmState[T]) admits(k Key, rv string) bool {
	want, ok := w.pending[k]
	return ok && want == rv
}

// passes tells whether an event at rv shows that the watch delivered every
// change up to L: an object's event after L, or a bookmark at L or after.
func (w *warmState[T]) passes(rv string, typ watch.EventType) bool {
	c := compareRV(rv, w.list)
	return c > 0 || c == 0 && typ == watch.Bookmark
}

// warmEvent notes an event that the watch of a warm start applied (nil:
// none yet) and completes the sync once the store is in step.
func (s *Syncer[T]) warmEvent(obj Object, typ watch.EventType) {
	w := s.warm
	if obj != nil && typ != watch.Bookmark {
		k := KeyOf(obj)
		if want, ok := w.pending[k]; ok &&
			(want == "" && typ == watch.Deleted || want != "" && compareRV(obj.GetResourceVersion(), want) >= 0) {
			delete(w.pending, k)
		}
	}
	if !w.synced && len(w.pending) == 0 {
		w.synced = true
		if w.fromSnapshot && compareRV(s.rv, w.list) < 0 {
			// The store is the state at L: the events still to come up to
			// L are all filtered, and a new watch need not read them.
			s.rv = w.list
		}
		s.synced(ModeWarm, w.objects, w.started)
	}
	if w.synced && !w.fromSnapshot {
		s.warm = nil
	}
}
