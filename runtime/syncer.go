package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Syncer keeps a typed local copy of one resource in sync with an API server.
// Create it with New, add handlers, then call Run.
type Syncer[T Object] struct {
	cfg     config
	res     Resource
	cache   *cache[T]
	src     *source[T] // nil for a Syncer made by NewDriver
	mode    atomic.Int32
	running atomic.Bool
	rv      string // last resourceVersion seen; "" means a full resync is due
}

// New returns a Syncer of T for res, talking to the server of cfg.
func New[T Object](cfg *rest.Config, res Resource, opts ...Option) (*Syncer[T], error) {
	if err := res.validate(); err != nil {
		return nil, err
	}
	s := newSyncer[T](res, opts)
	src, err := newSource[T](cfg, res, &s.cfg)
	if err != nil {
		return nil, err
	}
	s.src = src
	return s, nil
}

func newSyncer[T Object](res Resource, opts []Option) *Syncer[T] {
	s := &Syncer[T]{cfg: defaultConfig(), res: res}
	for _, o := range opts {
		o(&s.cfg)
	}
	s.cache = newCache[T](&s.cfg)
	return s
}

// Store returns the Syncer's local copy.
func (s *Syncer[T]) Store() *Store[T] { return s.cache.store }

// AddHandler registers h. h first gets the current state (OnAdd for each
// stored object, and OnSync if synced), then live events. The returned
// function unregisters it. Do not call AddHandler from inside a handler.
func (s *Syncer[T]) AddHandler(h Handler[T]) (remove func()) { return s.cache.addHandler(h) }

// HasSynced tells whether the store has matched a consistent snapshot of
// the server at least once.
func (s *Syncer[T]) HasSynced() bool { return s.cache.synced.Load() }

// WaitForSync blocks until HasSynced or ctx is done.
func (s *Syncer[T]) WaitForSync(ctx context.Context) error {
	select {
	case <-s.cache.syncedCh:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Mode tells how the last (re)sync got the initial state.
func (s *Syncer[T]) Mode() Mode { return Mode(s.mode.Load()) }

// Resource returns the resource the Syncer is bound to.
func (s *Syncer[T]) Resource() Resource { return s.res }

// Run syncs until ctx is done, retrying every failure with capped
// exponential backoff and jitter, and returns nil when ctx is done. It may
// be called once.
func (s *Syncer[T]) Run(ctx context.Context) error {
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("runtime: Syncer.Run called twice")
	}
	if s.src == nil { // driven by a Driver
		<-ctx.Done()
		return nil
	}
	log := s.cfg.logger.WithValues("resource", s.res.String())
	backoff := s.newBackoff()
	for ctx.Err() == nil {
		started := time.Now()
		op, err := s.cycle(ctx)
		if ctx.Err() != nil {
			break
		}
		if err == nil && time.Since(started) < time.Second {
			// The watch closed at once: the server is going away or a proxy
			// is dropping us. Treat it as a failure so that we back off.
			err = errClosedEarly
		}
		if err == nil {
			backoff = s.newBackoff()
			continue
		}
		kind := Classify(err)
		if kind == KindExpired {
			s.rv = "" // compacted away: a full resync is due
		}
		wait := backoff.Step()
		if kind == KindExpired || kind == KindNoBookmark {
			wait = 0 // act at once, as the server asked, but keep counting
		}
		serr := &SyncError{Kind: kind, Resource: s.res.String(), Op: op, RetryIn: wait, Err: err}
		log.V(1).Info("sync failed", "op", op, "kind", kind.String(), "retryIn", wait, "err", err.Error())
		s.cfg.metrics.Error(kind)
		s.cache.fail(serr)
		if !sleep(ctx, wait) {
			break
		}
	}
	return nil
}

func (s *Syncer[T]) newBackoff() *wait.Backoff {
	return &wait.Backoff{Duration: s.cfg.minBackoff, Factor: 2, Jitter: 0.5, Steps: 1 << 30, Cap: s.cfg.maxBackoff}
}

// cycle runs one connection: a full sync when one is due, then a watch
// until it ends. It returns the request that failed and why.
func (s *Syncer[T]) cycle(ctx context.Context) (op string, err error) {
	if s.rv == "" {
		if s.cfg.watchList && modes.choose(s.src.key, time.Now()) == ModeWatchList {
			w, err := s.src.watchList(ctx)
			switch {
			case err == nil:
				return s.consumeWatchList(ctx, w)
			case isWatchListRefused(err):
				s.cfg.logger.Info("server refused WatchList; falling back to LIST + WATCH",
					"resource", s.res.String(), "err", err.Error())
				modes.refuse(s.src.key, time.Now(), s.cfg.probeInterval)
			default:
				return "watchlist", err
			}
		}
		if err := s.listSync(ctx, true); err != nil {
			return "list", err
		}
	}
	return s.watchFrom(ctx)
}

// watchFrom watches from the last resourceVersion until the stream ends.
func (s *Syncer[T]) watchFrom(ctx context.Context) (op string, err error) {
	w, err := s.src.watch(ctx, s.rv)
	if err != nil {
		return "watch", err
	}
	return "watch", s.consume(ctx, w)
}

// consumeWatchList reads a WatchList stream: initial events up to the end
// bookmark, then live events. A stream that never ends its initial events
// is given up after the bookmark timeout and the sync completes with a LIST
// in the same epoch, so objects already received are not delivered again.
func (s *Syncer[T]) consumeWatchList(ctx context.Context, w *stream) (string, error) {
	defer w.stop()
	started := time.Now()
	s.cache.beginResync()
	idle := w.expireAfter(s.cfg.bookmarkTimeout)
	defer idle.Stop()
	total := w.expireAfter(s.cfg.initialTimeout)
	defer total.Stop()
	n := 0
	for {
		ev, err := w.next()
		switch {
		case ctx.Err() != nil:
			return "watchlist", ctx.Err()
		case w.expiredNow():
			return s.noBookmark(ctx, w, n, started)
		case err == io.EOF:
			return "watchlist", errClosedEarly
		case err != nil:
			return "watchlist", err
		}
		if !idle.Reset(s.cfg.bookmarkTimeout) {
			// The timer fired while this event was read: the stream is stopping.
			return s.noBookmark(ctx, w, n, started)
		}
		s.cfg.metrics.EventReceived(ev.Type)
		if ev.Type == watch.Error {
			return "watchlist", eventError(ev)
		}
		obj, ok := ev.Object.(T)
		if !ok {
			return "watchlist", unexpectedObject(ev)
		}
		switch ev.Type {
		case watch.Added, watch.Modified:
			s.cache.upsert(obj)
			n++
		case watch.Deleted:
			s.cache.delete(obj)
		case watch.Bookmark:
			if obj.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				continue
			}
			if !idle.Stop() || !total.Stop() {
				return s.noBookmark(ctx, w, n, started)
			}
			s.rv = obj.GetResourceVersion()
			modes.accept(s.src.key)
			s.synced(ModeWatchList, n, started)
			return "watch", s.consume(ctx, w)
		}
	}
}

// noBookmark gives up on a WatchList stream without an end bookmark and
// completes the resync with a paginated LIST.
func (s *Syncer[T]) noBookmark(ctx context.Context, w *stream, n int, started time.Time) (string, error) {
	w.stop()
	s.cfg.logger.Info("no initial-events-end bookmark; falling back to LIST + WATCH",
		"resource", s.res.String(), "received", n, "after", time.Since(started).Round(time.Millisecond))
	modes.refuse(s.src.key, time.Now(), s.cfg.probeInterval)
	s.cfg.metrics.Error(KindNoBookmark)
	s.cache.fail(&SyncError{Kind: KindNoBookmark, Resource: s.res.String(), Op: "watchlist", Err: errNoBookmark})
	if err := s.listSync(ctx, false); err != nil {
		return "list", err
	}
	return s.watchFrom(ctx)
}

// listSync reads a consistent paginated LIST into the cache. When fresh is
// false it completes a resync already begun.
func (s *Syncer[T]) listSync(ctx context.Context, fresh bool) error {
	started := time.Now()
	if fresh {
		s.cache.beginResync()
	}
	n := 0
	each := func(obj T) {
		s.cfg.metrics.EventReceived(watch.Added)
		s.cache.upsert(obj)
		n++
	}
	var rv, cont string
	for {
		var err error
		if rv, cont, err = s.src.list(ctx, cont, each); err != nil {
			return err
		}
		if cont == "" {
			break
		}
	}
	s.rv = rv
	s.synced(ModeList, n, started)
	return nil
}

func (s *Syncer[T]) synced(mode Mode, n int, started time.Time) {
	if Mode(s.mode.Swap(int32(mode))) != mode {
		s.cfg.metrics.ModeChanged(mode)
	}
	s.cache.finishResync()
	took := time.Since(started)
	s.cfg.metrics.Synced(mode, n, took)
	s.cfg.logger.V(1).Info("synced", "resource", s.res.String(), "mode", mode.String(),
		"objects", n, "took", took.Round(time.Millisecond), "resourceVersion", s.rv)
}

// consume reads live events until the stream ends, advancing the
// resourceVersion. It returns nil when the stream ends cleanly.
func (s *Syncer[T]) consume(ctx context.Context, w *stream) error {
	defer w.stop()
	for {
		ev, err := w.next()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
		s.cfg.metrics.EventReceived(ev.Type)
		if ev.Type == watch.Error {
			return eventError(ev)
		}
		obj, ok := ev.Object.(T)
		if !ok {
			return unexpectedObject(ev)
		}
		s.rv = obj.GetResourceVersion()
		switch ev.Type {
		case watch.Added, watch.Modified:
			s.cache.upsert(obj)
		case watch.Deleted:
			s.cache.delete(obj)
		}
	}
}

// eventError turns an ERROR event into an error. client-go reports a
// frame it could not decode as an ERROR event with reason ClientWatchDecoding.
func eventError(ev watch.Event) error {
	st, ok := ev.Object.(*metav1.Status)
	if !ok {
		return errDecode{fmt.Errorf("ERROR event with a %T instead of a Status", ev.Object)}
	}
	err := error(&apierrors.StatusError{ErrStatus: *st})
	if st.Reason == "ClientWatchDecoding" {
		return errDecode{err}
	}
	return err
}

func unexpectedObject(ev watch.Event) error {
	return errDecode{fmt.Errorf("%s event with a %T", ev.Type, ev.Object)}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
