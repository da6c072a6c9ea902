package runtime

import (
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// Metrics receives a Syncer's measurements. Calls about the stream are made
// on the Syncer's goroutine, calls about a handler on that handler's
// goroutine: an implementation must be safe for concurrent use, and cheap.
// Embed NopMetrics to implement only some.
type Metrics interface {
	// EventReceived is called for each event read from a stream or page item.
	EventReceived(t watch.EventType)
	// Synced is called when a (re)sync completes.
	Synced(mode Mode, objects int, took time.Duration)
	// Error is called for each failure, with its kind.
	Error(kind ErrorKind)
	// ModeChanged is called when the Syncer switches between WatchList and List.
	ModeChanged(mode Mode)
	// Relisted is called when a full resync starts, with why.
	Relisted(reason Reason)
	// Reconnected is called when a watch ended and another is to be opened,
	// with why it ended.
	Reconnected(reason Reason)
	// ObjectsStored is called with the number of objects in the store after
	// it changed.
	ObjectsStored(n int)
	// StoreBytes is called with the bytes the store holds (Store.Bytes: an
	// estimate kept as objects come and go) after it changed, right after
	// ObjectsStored.
	StoreBytes(bytes int64)
	// HandlerQueueDepth is called with the number of calls waiting for a
	// handler after it changed.
	HandlerQueueDepth(handler string, depth int)
	// HandlerCalled is called after each call to a handler: waited is the
	// time from the event's arrival to the call, took the call itself.
	HandlerCalled(handler string, waited, took time.Duration)
	// HandlerPanicked is called when a handler panicked (the Syncer
	// recovers, logs the panic and goes on).
	HandlerPanicked(handler string)
	// ShardModeChanged is called when a sharded Syncer learns who keeps it
	// to its shard: the server, or itself (see ShardMode).
	ShardModeChanged(mode ShardMode)
	// ReadWaited is called after each wait for the store to observe a
	// resourceVersion, an object or a deletion (Syncer.WaitFor..., and
	// reads of Writes), with how it ended and how long it took.
	ReadWaited(op WaitOp, result WaitResult, waited time.Duration)
	// DriftRepaired is called for each object a drift check found the
	// store wrong about and repaired (see WithDriftCheck), with what was
	// wrong: ReasonDriftMissing, ReasonDriftStale or ReasonDriftGone.
	DriftRepaired(reason Reason)
}

// SnapshotMetrics is what a Metrics may implement besides, to count the
// objects a Syncer could not write to its snapshot (WithSnapshot). A
// Syncer whose Metrics implement it calls it; Metrics itself is unchanged,
// so that implementations written before it still compile. NopMetrics
// and package prometheusmetrics implement it.
type SnapshotMetrics interface {
	// ObjectsNotSaved is called after a snapshot was written without n of
	// the store's objects, which could not be encoded: a cycle, or a value
	// in an interface that is not what JSON decodes into, that a transform
	// made (nothing a server serves is refused). Each is logged with its
	// key and why. They are left out of every snapshot they cannot be
	// written to; the next start lists them from the server.
	ObjectsNotSaved(n int)
}

// Reason tells why a Syncer relisted or reconnected.
type Reason string

// Why a full resync started (Metrics.Relisted).
const (
	// ReasonInitial: the first sync.
	ReasonInitial Reason = "initial"
	// ReasonExpired: the resourceVersion to watch from was compacted (410 Gone).
	ReasonExpired Reason = "expired"
	// ReasonNoBookmark: a WatchList stream ended its initial events without
	// the initial-events-end bookmark; the resync is completed with a LIST.
	ReasonNoBookmark Reason = "no-bookmark"
	// ReasonStreamCut: WatchList streams were cut before their initial
	// events ended, again and again; the resync is completed with a LIST.
	ReasonStreamCut Reason = "stream-cut"
	// ReasonContinueExpired: the continue token of a paginated LIST
	// expired; the LIST is read again in one piece.
	ReasonContinueExpired Reason = "continue-expired"
)

// Why a watch ended (Metrics.Reconnected).
const (
	// ReasonWatchTimeout: the watch reached the timeout it asked for; normal.
	ReasonWatchTimeout Reason = "timeout"
	// ReasonClosedEarly: the server or a proxy ended the watch before its
	// timeout, after it had delivered events (e.g. the server closing an
	// unresponsive watcher, a restart, a proxy's maximum stream duration).
	ReasonClosedEarly Reason = "closed-early"
	// ReasonFailed: the request or the stream failed; see Metrics.Error.
	ReasonFailed Reason = "failed"
)

// NopMetrics implements Metrics and does nothing.
type NopMetrics struct{}

// ShardModeChanged implements Metrics.
func (NopMetrics) ShardModeChanged(ShardMode) {}

// EventReceived implements Metrics.
func (NopMetrics) EventReceived(watch.EventType) {}

// Synced implements Metrics.
func (NopMetrics) Synced(Mode, int, time.Duration) {}

// Error implements Metrics.
func (NopMetrics) Error(ErrorKind) {}

// ModeChanged implements Metrics.
func (NopMetrics) ModeChanged(Mode) {}

// Relisted implements Metrics.
func (NopMetrics) Relisted(Reason) {}

// Reconnected implements Metrics.
func (NopMetrics) Reconnected(Reason) {}

// ObjectsStored implements Metrics.
func (NopMetrics) ObjectsStored(int) {}

// StoreBytes implements Metrics.
func (NopMetrics) StoreBytes(int64) {}

// HandlerQueueDepth implements Metrics.
func (NopMetrics) HandlerQueueDepth(string, int) {}

// HandlerCalled implements Metrics.
func (NopMetrics) HandlerCalled(string, time.Duration, time.Duration) {}

// HandlerPanicked implements Metrics.
// NamesMetrics is what a Metrics may implement besides, to tell the size
// of the set of a Syncer over names (WithNames), as SnapshotMetrics is to
// count objects not saved. NopMetrics and package prometheusmetrics
// implement it.
type NamesMetrics interface {
	// Names is called when the set changes or a name's standing does: n
	// names in all, refused of them refused by the server (NameError).
	Names(n, refused int)
}

func (NopMetrics) HandlerPanicked(string) {}

// ReadWaited implements Metrics.
func (NopMetrics) ReadWaited(WaitOp, WaitResult, time.Duration) {}

// DriftRepaired implements Metrics.
func (NopMetrics) DriftRepaired(Reason) {}

// ObjectsNotSaved implements SnapshotMetrics.
func (NopMetrics) ObjectsNotSaved(int) {}

// Names implements NamesMetrics.
func (NopMetrics) Names(int, int) {}
