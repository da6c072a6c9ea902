package runtime

import (
	"context"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// maxCuts is how many WatchList streams in a row may end before their end
// bookmark before the Syncer completes the sync with paginated LIST +
// WATCH, whose requests are short: a proxy or load balancer with a maximum
// stream duration shorter than the initial stream cuts every attempt.
const maxCuts = 3

// beginResync starts a full resync, or continues the one under way in a
// new epoch (an attempt that failed midway, a fallback to LIST): objects
// not seen again in this attempt's snapshot are deleted at its end.
func (s *Syncer[T]) beginResync() {
	if s.cache.beginResync(s.part) {
		s.progress.begin(time.Now())
		s.cfg.metrics.Relisted(s.due)
	} else {
		s.progress.received.Store(0)
	}
}

// watchList syncs with a WatchList stream, then goes on reading it as the
// watch. fallback is true when the sync is to be completed with a LIST: the
// server refused WatchList, or the stream showed that its end bookmark will
// not come, or streams keep being cut before it.
//
// The end bookmark is missing behind proxies that drop it or strip the
// request's parameters, and in front of aggregated servers that do not
// implement it; the stream then looks like a plain watch. Silence is no
// evidence (live events may flow all along), so the wait for the bookmark
// is bounded from what the stream shows: once live events flow (MODIFIED,
// DELETED, a plain BOOKMARK: the initial events are only ADDED) or as many
// objects arrived as the server counted just before, the bookmark is due
// within the bookmark timeout. The stream may also stay silent that long,
// and last the initial-events timeout in all.
func (s *Syncer[T]) watchList(ctx context.Context) (res result, fallback bool) {
	const op = "watchlist"
	s.beginResync()
	// A name's lane has one object at most: counting it would cost a
	// request per name (each sync of each name) for nothing.
	estimate, counted := int64(1), true
	if !s.cfg.oneName || s.cfg.shard != nil {
		estimate, counted = s.src.count(ctx)
	}
	if counted {
		if n, ok := s.src.inShardEstimate(estimate); ok {
			s.expect(n)
		}
	}
	w, err := s.src.watchList(ctx)
	if err != nil {
		if isWatchListRefused(err) {
			s.cfg.logger.Info("server refused WatchList; using LIST + WATCH", "resource", s.res.String(), "err", err.Error())
			modes.refuse(s.src.key, time.Now(), s.cfg.probeInterval)
			return result{}, true
		}
		// Cuts count in a row: a server that cannot be reached (restarting,
		// say) is another failure, and says nothing of the path's streams.
		s.cuts = 0
		return result{op: op, err: err}, false
	}
	defer w.stop()
	started := time.Now()
	idle := w.expireAfter(s.cfg.bookmarkTimeout)
	defer idle.Stop()
	total := w.expireAfter(s.cfg.initialTimeout)
	defer total.Stop()
	var due *time.Timer // runs once the initial events are over
	bookmarkDue := func() {
		if due == nil {
			due = w.expireAfter(s.cfg.bookmarkTimeout)
		}
	}
	defer func() {
		if due != nil {
			due.Stop()
		}
	}()
	n, kept := int64(0), int64(0) // initial events, and those of the shard
	for {
		ev, err := w.next()
		bad := asUndecodable(err)
		switch {
		case ctx.Err() != nil:
			return result{op: op, err: ctx.Err()}, false
		case w.expiredNow():
			return s.noBookmark(n, started), true
		case bad != nil:
			ev.Object, err = s.stub(bad), nil
		case err == io.EOF:
			return s.cut(n)
		case err != nil:
			return result{op: op, err: err, received: n > 0}, false
		}
		idle.Reset(s.cfg.bookmarkTimeout)
		s.cfg.metrics.EventReceived(ev.Type)
		if ev.Type == watch.Error {
			return result{op: op, err: eventError(ev), received: n > 0}, false
		}
		obj, ok := ev.Object.(T)
		if !ok {
			return result{op: op, err: unexpectedObject(ev), received: n > 0}, false
		}
		foreign := s.foreign(ev.Type, obj)
		switch ev.Type {
		case watch.Added:
			n++
			if counted && n >= estimate {
				bookmarkDue()
			}
			if foreign {
				continue
			}
			s.ingest(op, ev.Type, obj, bad)
			kept++
			s.progress.received.Store(kept)
		case watch.Modified, watch.Deleted:
			bookmarkDue()
			s.cache.goLive(s.part) // the initial events are over
			if !foreign {
				s.ingest(op, ev.Type, obj, bad)
			}
		case watch.Bookmark:
			if obj.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				bookmarkDue()
				continue
			}
			// The watch goes on in this stream: its timers end here.
			idle.Stop()
			total.Stop()
			if due != nil {
				due.Stop()
			}
			s.rv = obj.GetResourceVersion()
			s.cuts = 0
			modes.accept(s.src.key)
			s.synced(ModeWatchList, int(kept), started)
			res := s.consume(ctx, w, started)
			res.received = true
			return res, false
		}
	}
}

// noBookmark gives up on a WatchList stream whose end bookmark did not come
// in time; the sync goes on with a LIST.
func (s *Syncer[T]) noBookmark(n int64, started time.Time) result {
	s.cfg.logger.Info("no initial-events-end bookmark; completing the sync with LIST + WATCH",
		"resource", s.res.String(), "received", n, "after", time.Since(started).Round(time.Millisecond))
	modes.refuse(s.src.key, time.Now(), s.cfg.probeInterval)
	s.cfg.metrics.Relisted(ReasonNoBookmark)
	s.report(&SyncError{Kind: KindNoBookmark, Resource: s.res.String(), Op: "watchlist", Err: errNoBookmark})
	return result{}
}

// cut handles a WatchList stream that ended before its end bookmark: the
// next attempt continues the resync, and after maxCuts in a row the sync
// is completed with LIST + WATCH.
func (s *Syncer[T]) cut(n int64) (result, bool) {
	s.cuts++
	if s.cuts < maxCuts {
		return result{op: "watchlist", err: errStreamCut, received: n > 0}, false
	}
	s.cfg.logger.Info("WatchList streams keep ending before their initial events; completing the sync with LIST + WATCH",
		"resource", s.res.String(), "attempts", s.cuts)
	s.cuts = 0
	modes.refuse(s.src.key, time.Now(), s.cfg.probeInterval)
	s.cfg.metrics.Relisted(ReasonStreamCut)
	s.report(&SyncError{Kind: KindUnavailable, Resource: s.res.String(), Op: "watchlist", Err: errStreamCut})
	return result{}, true
}

// listSync reads a consistent paginated LIST into the cache, as a resync
// of its own or to complete the one under way. When the continue token
// expires (the LIST took longer than the server keeps its snapshot), it
// reads the LIST again in one piece, as client-go's pager does.
func (s *Syncer[T]) listSync(ctx context.Context) error {
	started := time.Now()
	s.beginResync()
	n := int64(0)
	take := func(obj T, bad *ObjectDecodeError) {
		s.cfg.metrics.EventReceived(watch.Added)
		if s.foreign(watch.Added, obj) {
			return
		}
		s.ingest("list", watch.Added, obj, bad)
		n++
		s.progress.received.Store(n)
	}
	each := func(obj T) { take(obj, nil) }
	bad := func(b *ObjectDecodeError) { take(s.stub(b), b) }
	limit := s.cfg.pageSize
	var rv, cont string
	for {
		page, err := s.src.list(ctx, cont, limit, each, bad)
		switch {
		case err != nil && cont != "" && isExpired(err):
			s.cfg.logger.Info("continue token expired; reading the LIST in one piece", "resource", s.res.String(), "received", n)
			s.cfg.metrics.Relisted(ReasonContinueExpired)
			s.beginResync()
			n, cont, limit = 0, "", 0
			continue
		case askedShard(err): // reported; read again from the start, for every object (see noteShard)
			s.beginResync()
			n, cont = 0, ""
			continue
		case err != nil:
			return err
		}
		if cont == "" && page.remaining >= 0 {
			if est, ok := s.src.inShardEstimate(int64(page.items) + page.remaining); ok {
				s.expect(est)
			}
		}
		rv, cont = page.rv, page.next
		if cont == "" {
			break
		}
	}
	s.rv = rv
	s.synced(ModeList, int(n), started)
	return nil
}

// expect notes the number of objects the server says a resync will bring:
// for the progress, and so that a first sync's store is made that large at
// once.
func (s *Syncer[T]) expect(n int64) {
	s.progress.estimate.Store(n)
	s.cache.store.reserve(n)
}

func (s *Syncer[T]) synced(mode Mode, n int, started time.Time) {
	if Mode(s.mode.Swap(int32(mode))) != mode {
		s.cfg.metrics.ModeChanged(mode)
	}
	s.cache.finishResync(s.part, s.rv)
	s.progress.finish(time.Now())
	took := time.Since(started)
	s.cfg.metrics.Synced(mode, n, took)
	s.cfg.logger.V(1).Info("synced", "resource", s.res.String(), "mode", mode.String(),
		"objects", n, "took", took.Round(time.Millisecond), "resourceVersion", s.rv)
}
