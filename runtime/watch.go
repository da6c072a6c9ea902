package runtime

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// watchFrom watches from the last resourceVersion until the stream ends.
func (s *Syncer[T]) watchFrom(ctx context.Context) result {
	opened := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// A warm start catching up must not wait for ever on a silent watch:
	// here for its first byte (the watch opens with it), in consume for
	// its next events.
	var silent *time.Timer
	if s.catchingUp() {
		silent = time.AfterFunc(s.cfg.bookmarkTimeout, cancel)
	}
	w, err := s.src.watch(ctx, s.rv)
	if silent != nil && !silent.Stop() {
		if err == nil {
			w.stop()
		}
		return result{op: "watch", err: errWarmStalled}
	}
	if err != nil {
		return result{op: "watch", err: err}
	}
	return s.consume(ctx, w, opened)
}

// catchingUp tells whether a warm start waits for its watch to bring the
// store in step.
func (s *Syncer[T]) catchingUp() bool { return s.warm != nil && !s.warm.synced }

// consume reads live events until the stream ends, advancing the
// resourceVersion. A stream that ends by itself is a result with no error
// and the reason it ended; one that ended at once with nothing, closed by a
// server or proxy that drops us, is errClosedEarly.
func (s *Syncer[T]) consume(ctx context.Context, w *stream, opened time.Time) result {
	const op = "watch"
	defer w.stop()
	live := false
	var stall *time.Timer // see watchFrom
	if s.catchingUp() {
		stall = w.expireAfter(s.cfg.bookmarkTimeout)
		defer stall.Stop()
	}
	var drift *time.Timer // ends the watch when a drift check is due
	if d, ok := s.driftIn(); ok {
		drift = w.expireAfter(d)
		defer drift.Stop()
	}
	for {
		ev, err := w.next()
		bad := asUndecodable(err)
		switch {
		case ctx.Err() != nil:
			return result{op: op, err: ctx.Err()}
		case stall != nil && w.expiredNow():
			return result{op: op, err: errWarmStalled, received: live}
		case drift != nil && w.expiredNow():
			return result{op: op, ended: ReasonDriftCheck, received: live, live: live}
		case bad != nil:
			ev.Object, err = s.stub(bad), nil
		case err == io.EOF:
			lasted := time.Since(opened)
			switch {
			case lasted >= w.timeout*9/10:
				return result{op: op, ended: ReasonWatchTimeout, received: live, live: live}
			case !live && lasted < time.Second:
				return result{op: op, err: errClosedEarly}
			}
			return result{op: op, ended: ReasonClosedEarly, received: live, live: live}
		case err != nil:
			return result{op: op, err: err, received: live, live: live}
		}
		s.cfg.metrics.EventReceived(ev.Type)
		if ev.Type == watch.Error {
			return result{op: op, err: eventError(ev), received: live, live: live}
		}
		obj, ok := ev.Object.(T)
		if !ok {
			return result{op: op, err: unexpectedObject(ev), received: live, live: live}
		}
		// Only an object event is progress: a server or proxy that answers
		// every watch with a bookmark and closes must meet the backoff of
		// a watch that ended with nothing, not a reconnection at once.
		live = live || ev.Type != watch.Bookmark
		if err := s.apply(ev.Type, obj, bad); err != nil {
			return result{op: op, err: err, received: live, live: live}
		}
		if stall != nil {
			if !s.catchingUp() {
				stall.Stop()
				stall = nil
			} else {
				stall.Reset(s.cfg.bookmarkTimeout)
			}
		}
	}
}

// apply applies an event of a watch that follows a sync, or that brings a
// warm start's store in step (see warmState); bad, when not nil, says that
// obj is a stub for an object that could not be decoded.
func (s *Syncer[T]) apply(typ watch.EventType, obj T, bad *ObjectDecodeError) error {
	rv := obj.GetResourceVersion()
	if w := s.warm; w != nil && w.fromSnapshot {
		switch {
		case w.passes(rv, typ):
			if len(w.pending) > 0 {
				s.rv, s.warm = "", nil // the resync goes on cold
				return errWarmIncomplete
			}
			w.fromSnapshot = false
		case !w.admits(KeyOf(obj), rv):
			return nil
		}
	} else if w != nil && w.stale(KeyOf(obj), typ) {
		s.rv = rv
		return nil
	}
	if s.foreign(typ, obj) { // another shard's: the store is at rv, as at a bookmark
		s.rv = rv
		s.cache.at(s.part, rv)
		return nil
	}
	s.rv = rv
	if typ == watch.Bookmark {
		s.cache.at(s.part, rv)
	} else {
		s.ingest("watch", typ, obj, bad)
	}
	if s.warm != nil {
		s.warmEvent(obj, typ)
	}
	return nil
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
