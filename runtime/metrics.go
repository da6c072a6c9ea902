package runtime

import (
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// Metrics receives a Syncer's measurements. Calls are made on the sync
// goroutine and must be cheap. Embed NopMetrics to implement only some.
type Metrics interface {
	// EventReceived is called for each event read from a stream or page item.
	EventReceived(t watch.EventType)
	// Synced is called when a (re)sync completes.
	Synced(mode Mode, objects int, took time.Duration)
	// Error is called for each failure, with its kind.
	Error(kind ErrorKind)
	// ModeChanged is called when the Syncer switches between WatchList and List.
	ModeChanged(mode Mode)
}

// NopMetrics implements Metrics and does nothing.
type NopMetrics struct{}

// EventReceived implements Metrics.
func (NopMetrics) EventReceived(watch.EventType) {}

// Synced implements Metrics.
func (NopMetrics) Synced(Mode, int, time.Duration) {}

// Error implements Metrics.
func (NopMetrics) Error(ErrorKind) {}

// ModeChanged implements Metrics.
func (NopMetrics) ModeChanged(Mode) {}
