package runtime

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
)

// ErrorKind sorts failures so that users can react to them without parsing
// messages.
type ErrorKind int

// The kinds of failure a Syncer reports.
const (
	KindUnknown      ErrorKind = iota
	KindForbidden              // 403: RBAC does not allow list or watch
	KindUnauthorized           // 401: credentials rejected
	KindNotFound               // 404: the resource or namespace does not exist on the server
	KindThrottled              // 429: too many requests
	KindExpired                // 410: the resourceVersion was compacted; a full resync follows
	KindTimeout                // a request or the server timed out
	KindInvalid                // 400, 406, 415, 422: the server rejected the request
	KindUnavailable            // connection refused or reset, 503, the stream closed early
	KindInternal               // 5xx other than 503
	KindDecode                 // an event or page could not be decoded
	KindNoBookmark             // WatchList accepted but no initial-events-end bookmark came: falling back
	KindUndecodable            // one object the Go type cannot decode (an *ObjectDecodeError): the rest stays in sync
	// KindShardMismatch: a LIST answer's metadata.shardInfo names another
	// shard than the one asked for (a proxy that rewrites the selector,
	// say). A sharded Syncer then asks for every object and keeps to its
	// shard itself (ShardMode: filtered): it goes on at once, and the sync
	// completes. An echo of a shard where none was asked for fails the
	// request, which is retried.
	KindShardMismatch
)

var kindNames = [...]string{
	KindUnknown:       "unknown",
	KindForbidden:     "forbidden",
	KindUnauthorized:  "unauthorized",
	KindNotFound:      "not-found",
	KindThrottled:     "throttled",
	KindExpired:       "expired",
	KindTimeout:       "timeout",
	KindInvalid:       "invalid",
	KindUnavailable:   "unavailable",
	KindInternal:      "internal",
	KindDecode:        "decode",
	KindNoBookmark:    "no-bookmark",
	KindUndecodable:   "undecodable",
	KindShardMismatch: "shard-mismatch",
}

// String returns the kind's short name, e.g. "forbidden".
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// SyncError is what OnError receives.
type SyncError struct {
	// Kind sorts the failure.
	Kind ErrorKind
	// Resource names the resource, e.g. "configmaps/v1".
	Resource string
	// Op is the request that failed: "watchlist", "list" or "watch".
	Op string
	// RetryIn is how long the Syncer waits before its next attempt.
	RetryIn time.Duration
	// Err is the underlying error.
	Err error
}

func (e *SyncError) Error() string {
	return fmt.Sprintf("sync %s: %s: %s (retry in %s): %v", e.Resource, e.Op, e.Kind, e.RetryIn.Round(time.Millisecond), e.Err)
}

func (e *SyncError) Unwrap() error { return e.Err }

// ObjectDecodeError is an object of the Syncer's resource that its Go type
// cannot decode: a custom resource whose schema accepts what the type
// refuses (an empty string for a metav1.Duration, a malformed Quantity).
// The Syncer goes on without it: it keeps the last version of the object
// that decoded, if any, and takes the object in again when a later version
// decodes; a deletion of it is told as inferred. Handlers get it in OnError,
// inside a *SyncError of Kind KindUndecodable, once per object version.
type ObjectDecodeError struct {
	Namespace       string
	Name            string
	UID             types.UID
	ResourceVersion string
	Err             error // the decoder's
	event           watch.EventType
}

func (e *ObjectDecodeError) Error() string {
	name := e.Name
	if e.Namespace != "" {
		name = e.Namespace + "/" + e.Name
	}
	return fmt.Sprintf("object %s at resourceVersion %s cannot be decoded: %v", name, e.ResourceVersion, e.Err)
}

func (e *ObjectDecodeError) Unwrap() error { return e.Err }

// errDecode marks a failure to decode an event or a page.
type errDecode struct{ err error }

func (e errDecode) Error() string { return "decode: " + e.err.Error() }
func (e errDecode) Unwrap() error { return e.err }

// errNoBookmark is returned when a WatchList stream never ends its initial events.
var errNoBookmark = errors.New("the server accepted the WatchList request but sent no initial-events-end bookmark")

// errClosedEarly is returned when a stream closed before it was of any use.
var errClosedEarly = errors.New("the watch stream closed early")

// errStreamCut is returned when WatchList streams keep ending before their
// initial events do.
var errStreamCut = errors.New("WatchList streams were cut before their initial events ended")

// Classify returns the kind of err.
func Classify(err error) ErrorKind {
	var se *SyncError
	if errors.As(err, &se) {
		return se.Kind
	}
	var de errDecode
	var oe *ObjectDecodeError
	var sm *errShardMismatch
	switch {
	case err == nil:
		return KindUnknown
	case errors.As(err, &oe):
		return KindUndecodable
	case errors.As(err, &sm):
		return KindShardMismatch
	case errors.Is(err, errNoBookmark):
		return KindNoBookmark
	case errors.As(err, &de):
		return KindDecode
	case isExpired(err):
		return KindExpired
	case apierrors.IsForbidden(err):
		return KindForbidden
	case apierrors.IsUnauthorized(err):
		return KindUnauthorized
	case apierrors.IsNotFound(err):
		return KindNotFound
	case apierrors.IsTooManyRequests(err):
		return KindThrottled
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err), apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err):
		return KindInvalid
	case apierrors.IsTimeout(err), apierrors.IsServerTimeout(err), errors.Is(err, context.DeadlineExceeded), utilnet.IsTimeout(err),
		errors.Is(err, errWarmStalled):
		return KindTimeout
	case apierrors.IsServiceUnavailable(err), errors.Is(err, errClosedEarly), errors.Is(err, errStreamCut), utilnet.IsConnectionRefused(err),
		utilnet.IsConnectionReset(err), utilnet.IsProbableEOF(err):
		return KindUnavailable
	case apierrors.IsInternalError(err), apierrors.IsUnexpectedServerError(err), errors.Is(err, errWarmIncomplete):
		return KindInternal
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return KindUnavailable
	}
	if code := apierrors.ReasonForError(err); code != "" {
		return KindInternal
	}
	return KindUnknown
}

// isExpired tells whether err means "the resourceVersion is too old".
func isExpired(err error) bool {
	if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
		return true
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Code == 410 {
		return true
	}
	return strings.Contains(err.Error(), "too old resource version")
}

// isWatchListRefused tells whether a WatchList request was refused because
// the server does not support it: 422 Invalid naming sendInitialEvents (the
// gate is off) or resourceVersionMatch (older than 1.27). Any other refusal,
// a bad selector say, is the request's fault, not the mode's.
func isWatchListRefused(err error) bool {
	if !apierrors.IsInvalid(err) {
		return false
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		if d := st.Status().Details; d != nil {
			for _, c := range d.Causes {
				if watchListParam(c.Field) {
					return true
				}
			}
		}
	}
	msg := err.Error()
	return strings.Contains(msg, "sendInitialEvents") || strings.Contains(msg, "resourceVersionMatch")
}

func watchListParam(field string) bool {
	return field == "sendInitialEvents" || field == "resourceVersionMatch"
}

// retryAfter returns the wait the server asked for with a 429 or 5xx
// (Retry-After), or 0.
func retryAfter(err error) time.Duration {
	if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
