package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/syncer-gen/syncer-gen/runtime/internal/wire"
)

// fetchers is how many GETs a warm start keeps in flight.
const fetchers = 16

// metadataPages is how many times larger than a page of objects
// (WithPageSize) a page of the metadata-only LIST is: its items are names
// and versions, a tenth of an object or less, so that such a page costs
// the server and the Syncer about what a page of objects does, in a tenth
// of the round trips (20,000 objects: 0.12 s instead of 0.25 s).
const metadataPages = 10

// maxMetadataItems bounds the items of a page of the metadata-only LIST
// whatever WithPageSize says, 0 (a LIST in one piece) included: the
// metadata of a large resource in one piece is over maxMetadataPage, and
// a page over it is read again smaller. The default page size's pages
// (5,000 items) are under it.
const maxMetadataItems = 10_000

// maxWarmFailures is how many attempts in a row of a warm resync may fail
// the same way (the same request, the same ErrorKind, nothing received)
// before the resync goes on cold: a server or proxy that fails the
// metadata-only LIST, or a catching-up watch, every time would otherwise
// keep the Syncer from syncing for ever. With the default backoff the
// fifth failure comes 3 to 4.5 s after the first.
const maxWarmFailures = 5

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
//     is read from disk while the LIST is under way, and each page matched
//     with it as it comes.
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
//     window, or the server restarted), or where the snapshot lacks an
//     object whose state at L is not newer than S (one that could not be
//     saved: the watch from S has no event of it), the objects whose state the
//     snapshot lacks are fetched by GET in a state not older than L, and a
//     watch from L follows. A fetched state newer than L makes the store
//     run ahead of L for that object until the watch delivers that change;
//     a GET that found nothing (a deletion after L) until the watch
//     delivers the deletion. Once both have happened for every such
//     object, the store is the state at the last event applied: OnSync.
//     Events older than the stored state are dropped, deletions included.
//
// A warm start that cannot go on warm goes on cold in the same resync:
// the objects restored so far stay (a cold sync marks them seen, handlers
// are not told of them twice) and the snapshot objects not restored are
// owed (cache.owed): each is told gone at the end of the resync unless the
// cold sync stores an object of its UID. It goes cold where the server
// does not serve the metadata-only LIST (406, or a plain list for an
// answer) or one object's metadata is over maxMetadataPage (no smaller
// page to ask for), where its resourceVersions are not integers (nothing
// but equality can be known of them, and catching up needs their order),
// and where fetching what changed would cost the server more than a
// WatchList (fetchCostsMore). A failure after the LIST, or during it once
// a page was matched with the snapshot (see warmMatch), makes the rest of
// the resync cold. A LIST that failed before, or a catching-up watch that
// fails, is tried again warm, with backoff, until it fails the same way
// maxWarmFailures times in a row (warmFailed): then the resync goes on
// cold too.

// getCost is what one GET costs the server, in objects of a WatchList:
// kube-apiserver's CPU for 2,000 GETs of single objects against that of
// one WatchList of 20,000 such objects (ConfigMaps of 512 bytes), measured
// on v1.37.2 at 9.2 (TestGetCostMatchesTheServer): fetching a tenth of the
// objects costs the server about what a cold sync does.
const getCost = 9

// fetchCostsMore tells whether fetching n objects one by one costs the
// server more than a WatchList of all the objects would.
func fetchCostsMore(n, objects int) bool { return n > fetchers && n*getCost > objects }

// maxMetadataPage bounds the bytes of one page of the metadata-only LIST
// that are read into memory; a larger page is asked for again, smaller.
const maxMetadataPage = 32 << 20

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
	// fromSnapshot: the watch runs from the snapshot's resourceVersion and
	// has not yet passed L, so events up to L are filtered (see admits).
	fromSnapshot bool
	synced       bool
	objects      int
	started      time.Time
}

var (
	// errWarmIncomplete: the server broke the watch's ordering promise.
	errWarmIncomplete = errors.New("warm start: the watch from the snapshot's resourceVersion passed the LIST's without delivering every change up to it")
	// errWarmStalled: the watch of a warm start went silent before it
	// delivered every state the store lacks (a proxy that drops bookmarks
	// in front of a quiet resource, say).
	errWarmStalled = errors.New("warm start: the watch went silent before the store caught up")
	// errPageTooLarge: a page of the metadata-only LIST is over maxMetadataPage.
	errPageTooLarge = fmt.Errorf("a metadata-only LIST page over %d MiB", maxMetadataPage>>20)
)

// metadataRefused tells whether err means that the server will not serve
// the metadata-only LIST: asking again is no use.
func metadataRefused(err error) bool {
	return apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err) || errors.Is(err, wire.ErrNotMetadataList)
}

// warmFailures counts the attempts in a row of a warm resync that failed
// the same way.
type warmFailures struct {
	op   string
	kind ErrorKind
	n    int
}

// warmFailed notes how a cycle that went on warm ended (res) and tells
// whether the resync is to go on cold now: when the next attempt would be
// warm again, after maxWarmFailures attempts in a row that failed the same
// way. An attempt that received events made progress, and a throttled one
// (429) says nothing of the warm path: a cold sync would be throttled
// alike, at a higher cost to the server. Giving up reports the last
// failure, and owes the snapshot's objects if none was used yet (see
// dropWarm).
func (s *Syncer[T]) warmFailed(ctx context.Context, res result) (cold bool) {
	f := &s.warmFails
	kind := Classify(res.err)
	switch {
	case !s.warming() || res.err == nil || res.received || ctx.Err() != nil || kind == KindThrottled:
		*f = warmFailures{}
		return false
	case f.op != res.op || f.kind != kind:
		*f = warmFailures{op: res.op, kind: kind}
	}
	f.n++
	if f.n < maxWarmFailures {
		return false
	}
	*f = warmFailures{}
	s.cfg.logger.Info("warm resync: failed the same way again and again; going on cold",
		"resource", s.res.String(), "op", res.op, "kind", kind.String(), "attempts", maxWarmFailures, "err", res.err.Error())
	s.report(&SyncError{Kind: kind, Resource: s.res.String(), Op: res.op, Err: res.err})
	s.dropWarm(ctx)
	return true
}

// warming tells whether the next cycle goes on with a warm resync that
// has not synced yet.
func (s *Syncer[T]) warming() bool {
	return s.warm != nil && !s.warm.synced || s.snap != nil || s.fromStore
}

// dropWarm ends the warm resync under way, so that it goes on cold: a
// snapshot not used yet is read and each of its objects owed (told gone at
// the end of the resync unless the cold sync stores an object of its UID).
func (s *Syncer[T]) dropWarm(ctx context.Context) {
	if s.snap != nil {
		select {
		case snap := <-s.snap:
			for _, o := range snap.objs {
				s.cache.owe(o.obj)
			}
		case <-ctx.Done():
		}
	}
	s.snap, s.fromStore = nil, false
	s.rv, s.warm = "", nil
}

// warmSync runs a warm resync: at a start, from the snapshot loading
// (see loadSnapshot); after a 410 Gone on a running Syncer (loading nil),
// from its store, whose objects handlers hold already: then the unchanged
// objects are only marked seen, the changed ones stay until their new
// state comes (handlers get OnUpdate), and those gone are swept at the
// end (OnDelete, inferred). The server had no watch from the store's
// resourceVersion to give (that was the 410), so what changed is fetched.
// cold is true when the resync is to go on with a cold sync in this cycle.
func (s *Syncer[T]) warmSync(ctx context.Context, loading <-chan loaded[T]) (res result, cold bool) {
	started := time.Now()
	s.beginResync()
	log := s.cfg.logger.WithValues("resource", s.res.String())
	live := loading == nil
	m := s.matchWhileListing(ctx, loading)
	rv, err := s.listMetadata(ctx, "", m.page)
	m.listed()
	switch {
	case err == nil:
	case metadataRefused(err) || errors.Is(err, errPageTooLarge):
		// Asking again is no use: the server does not serve the LIST, or
		// one object's metadata is over the bound (the page was asked for
		// one item at a time).
		if metadataRefused(err) {
			s.noMeta = true
		}
		log.Info("warm resync: the server does not serve the metadata-only LIST, or one object's metadata is over the page bound; going on cold",
			"err", err.Error())
		s.snap = m.giveBack(loading)
		s.dropWarm(ctx)
		return result{}, true
	case m.used:
		// Part of the snapshot is restored already: the rest of the
		// resync is cold (the next cycle), as after a failure past the LIST.
		s.snap = m.giveBack(loading)
		s.dropWarm(ctx)
		return result{op: "list", err: err}, false
	default:
		// Nothing used yet: the next attempt is warm too (see warmFailed).
		s.snap, s.fromStore = m.giveBack(loading), live
		return result{op: "list", err: err}, false
	}
	switch {
	case ctx.Err() != nil:
		return result{op: "list", err: ctx.Err()}, false
	case !m.usable: // not usable: logged
		return result{}, true
	}
	snap := m.snap
	w := &warmState[T]{list: rv, pending: m.pending, started: started}
	kept, gone, unsaved := m.kept, m.gone, m.unsaved
	for k, o := range snap.objs {
		s.cache.owe(o.obj)
		s.cache.vanished(k)
		gone++
	}
	if live {
		gone = s.cache.store.Len() - kept - len(w.pending) // an estimate: swept at the end
	}
	s.progress.received.Store(int64(kept))
	w.objects = kept + len(w.pending)
	s.progress.estimate.Store(int64(w.objects))
	changed := len(w.pending)
	// The snapshot not newer than the LIST (etcd restored from a backup),
	// and every object it lacks changed since.
	watchable := !live && snap.rv != "" && compareRV(snap.rv, rv) <= 0 && unsaved == 0
	switch {
	case !integerRV(rv) || snap.rv != "" && !integerRV(snap.rv):
		log.Info("warm resync: the server's resourceVersions are not integers, so changes cannot be ordered; going on cold",
			"unchanged", kept, "changed", changed, "gone", gone, "listResourceVersion", rv)
		return result{}, true
	case !watchable && fetchCostsMore(changed, w.objects):
		log.Info("warm resync: fetching what changed would cost the server more than a full sync; going on cold",
			"unchanged", kept, "changed", changed, "gone", gone)
		return result{}, true
	}
	log.V(1).Info("warm resync", "fromStore", live, "unchanged", kept, "changed", changed, "gone", gone, "notInSnapshot", unsaved,
		"listResourceVersion", rv, "snapshotResourceVersion", snap.rv)
	s.warm = w
	if watchable {
		w.fromSnapshot = true
		s.rv = snap.rv
		s.warmEvent(nil, "")
		return s.warmWatch(ctx)
	}
	return s.warmFetch(ctx)
}

// listMetadata reads every page of the metadata-only LIST, hands each
// page's items to page as it comes, and returns the LIST's
// resourceVersion: a consistent read, or, with exact, the state at
// exactly that resourceVersion (a drift check; not a sync, so the
// server's count is not noted as one). A sharded Syncer first counts the
// objects (a LIST of one item, of the full type): its metadata.shardInfo
// tells whether the server keeps to the shard asked for, which the
// metadata-only LIST's pages do not (see metadataList); an answer for
// another shard makes every request ask for every object (see
// noteShard): then the LIST is read again from the start, so a sharded
// Syncer's items are handed to page in one piece, at the end.
func (s *Syncer[T]) listMetadata(ctx context.Context, exact string, page func([]listed)) (rv string, err error) {
	if s.cfg.shard != nil {
		s.src.count(ctx)
	}
	var cont string
	var buf bytes.Buffer
	limit := s.cfg.pageSize * metadataPages
	if limit <= 0 || limit > maxMetadataItems {
		limit = maxMetadataItems
	}
	var items []listed
	for {
		page0 := len(items)
		p, err := s.src.metadataList(ctx, cont, exact, limit, maxMetadataPage, &buf, func(l listed) {
			if !s.foreignListed(l) {
				items = append(items, l)
			}
		})
		switch {
		case errors.Is(err, errPageTooLarge) && limit > 1:
			items = items[:page0]
			limit = max(1, limit/8)
			continue
		case askedShard(err): // reported; read again from the start, for every object (see noteShard)
			items, cont = items[:0], ""
			continue
		case err != nil:
			return "", err
		}
		if est, ok := s.src.inShardEstimate(int64(p.items) + p.remaining); cont == "" && exact == "" && p.remaining >= 0 && ok {
			n := est
			s.expect(n)
			if room := int(min(n, maxReserve)) - len(items); room > 0 && s.cfg.shard != nil { // the server's count, bounded as the store's
				items = slices.Grow(items, room)
			}
		}
		if s.cfg.shard == nil { // read once: each page as it comes
			page(items)
			items = nil
		}
		rv, cont = p.rv, p.next
		if cont == "" {
			if len(items) > 0 {
				page(items)
			}
			return rv, nil
		}
	}
}

// warmWatch watches during a warm start; cold is true when the resync is
// to go on cold in this cycle. When the server no longer has the
// snapshot's resourceVersion, or its watch went silent, before the store
// caught up, it fetches what the store still lacks instead and watches
// from the LIST.
func (s *Syncer[T]) warmWatch(ctx context.Context) (res result, cold bool) {
	res = s.watchFrom(ctx)
	w := s.warm
	if w == nil || w.synced || res.err == nil {
		return res, false
	}
	switch {
	case w.fromSnapshot && (isExpired(res.err) || errors.Is(res.err, errWarmStalled)):
		s.cfg.logger.V(1).Info("warm start: the watch from the snapshot's resourceVersion cannot bring the store up to date; fetching what changed",
			"resource", s.res.String(), "resourceVersion", s.rv, "err", res.err.Error())
		return s.warmFetch(ctx)
	case errors.Is(res.err, errWarmStalled):
		s.rv, s.warm = "", nil // the resync goes on cold
	}
	return res, false
}

// warmFetch fetches the objects the store lacks in a state not older than
// the LIST's, then watches from the LIST; cold is true when the resync is
// to go on cold in this cycle.
func (s *Syncer[T]) warmFetch(ctx context.Context) (res result, cold bool) {
	w := s.warm
	w.fromSnapshot = false
	if fetchCostsMore(len(w.pending), w.objects) {
		s.cfg.logger.Info("warm start: fetching what changed would cost the server more than a full sync; going on cold",
			"resource", s.res.String(), "changed", len(w.pending), "objects", w.objects)
		return result{}, true
	}
	pending, err := s.fetch(ctx, slices.Collect(maps.Keys(w.pending)), w.list)
	if err != nil {
		s.rv, s.warm = "", nil // the resync goes on cold
		return result{op: "get", err: err}, false
	}
	w.pending = pending
	s.rv = w.list
	s.cache.goLive(s.part) // the watch from the LIST brings live events
	s.warmEvent(nil, "")
	return s.watchFrom(ctx), false
}

// fetch reads the objects of keys in a state not older than rv and stores
// them. It returns, for each whose state is not rv's, the resourceVersion
// the watch from rv must reach for it ("" when the watch must deliver its
// deletion, or its leaving the selection). Every result that comes is
// applied, after an error too: what the cold sync that follows an error
// does not store again is told gone at its end.
func (s *Syncer[T]) fetch(ctx context.Context, keys []Key, rv string) (map[Key]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type fetched struct {
		key Key
		got T
		err error
	}
	work := make(chan Key)
	done := make(chan fetched)
	var wg sync.WaitGroup
	for range min(fetchers, len(keys)) {
		wg.Go(func() {
			for k := range work {
				got, err := s.src.fetch(ctx, k, rv)
				done <- fetched{k, got, err}
			}
		})
	}
	go func() {
		defer close(work)
		for _, k := range keys {
			select {
			case work <- k:
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
		case apierrors.IsNotFound(f.err), f.err == nil && s.foreign(watch.Added, f.got): // gone, or recreated outside the shard
			s.cache.vanished(f.key)
			pending[f.key] = ""
		case asUndecodable(f.err) != nil: // there, in a version that does not decode
			bad := asUndecodable(f.err)
			if stub := s.stub(bad); s.foreign(watch.Added, stub) {
				s.cache.vanished(f.key)
				pending[f.key] = ""
			} else {
				s.ingest("get", watch.Added, stub, bad)
			}
			if compareRV(bad.ResourceVersion, rv) > 0 {
				pending[f.key] = bad.ResourceVersion
			}
		case f.err != nil:
			if firstErr == nil {
				firstErr = f.err
				cancel()
			}
		default:
			s.cfg.metrics.EventReceived(watch.Added)
			s.cache.upsert(f.got)
			if compareRV(f.got.GetResourceVersion(), rv) > 0 {
				pending[f.key] = f.got.GetResourceVersion()
			}
			received++
			if s.warm != nil { // a sync's progress; not a drift check's
				s.progress.received.Store(received)
			}
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

// stale tells whether an event of key k, on the watch from L after the
// fetches, is older than what a fetch found: k was gone (a deletion after
// L), so that only its deletion is to come; the states before it (a pod's
// deletionTimestamp, say) would bring back an object handlers were told
// is gone.
func (w *warmState[T]) stale(k Key, typ watch.EventType) bool {
	want, ok := w.pending[k]
	return ok && want == "" && typ != watch.Deleted
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
