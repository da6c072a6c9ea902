package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/syncer-gen/syncer-gen/runtime/internal/wire"
)

// stream is an open watch response whose events the Syncer decodes on its
// own goroutine. client-go's StreamWatcher decodes on a goroutine of its
// own and hands each event over a channel: one more goroutine wake-up per
// event, which in a steady trickle of events costs more CPU than decoding.
// Decoding is that of client-go's rest/watch.Decoder, with one WatchEvent
// reused for every frame.
type stream struct {
	frames  *wire.Frames     // WatchEvent frames
	objects kruntime.Decoder // the objects inside them
	// newObject returns an empty object of the Syncer's type, for a
	// bookmark read from its bytes (see wire.ReadBookmark); nil to decode
	// bookmarks as any object.
	newObject func() kruntime.Object
	event     metav1.WatchEvent
	body      io.ReadCloser
	cancel    context.CancelFunc
	timeout   time.Duration // the timeout the watch asked the server for
	expired   atomic.Bool
	stopOnce  sync.Once
}

// next returns the next event. A stream that ended (closed by the server,
// the connection or stop) returns io.EOF; an undecodable event, errDecode.
func (s *stream) next() (watch.Event, error) {
	s.event = metav1.WatchEvent{}
	// The event's Object.Raw points into the frame's buffer: the buffer is
	// given back once the object is decoded from it.
	defer func() {
		s.event.Object.Raw = nil
		s.frames.Release()
	}()
	res, err := s.frames.Decode(&s.event)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.Canceled) ||
			utilnet.IsProbableEOF(err) || utilnet.IsTimeout(err) || s.expired.Load() {
			return watch.Event{}, io.EOF
		}
		return watch.Event{}, errDecode{err}
	}
	if res != &s.event {
		return watch.Event{}, errDecode{fmt.Errorf("a watch frame decoded to %T, not a WatchEvent", res)}
	}
	typ := watch.EventType(s.event.Type)
	switch typ {
	case watch.Added, watch.Modified, watch.Deleted, watch.Error, watch.Bookmark:
	default:
		return watch.Event{}, errDecode{fmt.Errorf("invalid watch event type %q", s.event.Type)}
	}
	if typ == watch.Bookmark && s.newObject != nil {
		if b, ok := wire.ReadBookmark(s.event.Object.Raw); ok {
			return watch.Event{Type: typ, Object: s.bookmark(b)}, nil
		}
	}
	obj, err := kruntime.Decode(s.objects, s.event.Object.Raw)
	if err != nil {
		if bad := undecodable(s.event.Object.Raw, err); bad != nil && typ != watch.Bookmark && typ != watch.Error {
			bad.event = typ
			return watch.Event{Type: typ}, bad
		}
		return watch.Event{}, errDecode{fmt.Errorf("%s event: %w", typ, err)}
	}
	return watch.Event{Type: typ, Object: obj}, nil
}

// bookmark returns an object of the Syncer's type that holds what b tells,
// as the decoded bookmark would hold it.
func (s *stream) bookmark(b wire.Bookmark) kruntime.Object {
	obj := s.newObject()
	m := obj.(metav1.Object)
	m.SetResourceVersion(b.ResourceVersion)
	if b.InitialEventsEnd {
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	return obj
}

// undecodable returns what tells the object of raw, which failed to decode
// with err, when raw is a JSON object whose metadata names it; else nil:
// the frame as a whole is malformed.
func undecodable(raw []byte, err error) *ObjectDecodeError {
	var id struct {
		Metadata struct {
			Namespace       string    `json:"namespace"`
			Name            string    `json:"name"`
			UID             types.UID `json:"uid"`
			ResourceVersion string    `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &id) != nil || id.Metadata.Name == "" || id.Metadata.ResourceVersion == "" {
		return nil
	}
	m := id.Metadata
	return &ObjectDecodeError{Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion, Err: err}
}

// expireAfter stops the stream when d passes, unless the returned timer is
// stopped or reset first; expiredNow then tells that it happened.
func (s *stream) expireAfter(d time.Duration) *time.Timer {
	return time.AfterFunc(d, func() {
		s.expired.Store(true)
		s.stop()
	})
}

// expiredNow tells whether a timer of expireAfter stopped the stream.
func (s *stream) expiredNow() bool { return s.expired.Load() }

// stop closes the stream; a blocked next returns. It may be called from any
// goroutine, more than once.
func (s *stream) stop() {
	s.stopOnce.Do(func() {
		s.cancel()
		_ = s.body.Close()
	})
}
