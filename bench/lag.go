package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// lagObserver records, for each update a handler gets during the steady
// state, the time from the parent's write (in writtenAtAnnotation) to the
// handler. Parent and child run on one machine, so the clocks agree.
type lagObserver struct {
	mu     sync.Mutex
	on     bool
	lags   []time.Duration
	target int
	done   chan struct{}
}

func newLagObserver() *lagObserver { return &lagObserver{} }

// observe is called by a handler with an updated object.
func (o *lagObserver) observe(obj metav1.Object) {
	now := time.Now().UnixNano()
	stamp, ok := obj.GetAnnotations()[writtenAtAnnotation]
	if !ok {
		stamp = obj.GetLabels()[writtenAtAnnotation] // resource.stampLabel
	}
	written, err := strconv.ParseInt(stamp, 10, 64)
	if err != nil || written == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.on {
		return
	}
	o.lags = append(o.lags, time.Duration(now-written))
	if o.target > 0 && len(o.lags) == o.target {
		close(o.done)
	}
}

// start begins recording.
func (o *lagObserver) start() {
	o.mu.Lock()
	o.on = true
	o.mu.Unlock()
}

// wait returns the lags once n updates were seen, or fails after timeout.
func (o *lagObserver) wait(ctx context.Context, n int, timeout time.Duration) ([]time.Duration, error) {
	o.mu.Lock()
	if len(o.lags) >= n {
		defer o.mu.Unlock()
		return o.lags, nil
	}
	o.target = n
	done := make(chan struct{}) // a wait of its own: an earlier wait's channel is closed
	o.done = done
	o.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		o.mu.Lock()
		defer o.mu.Unlock()
		return nil, fmt.Errorf("saw %d of %d updates after %s", len(o.lags), n, timeout)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lags, nil
}

// formatNanos writes unix nanoseconds with a fixed width, so that an
// object's size does not change when the annotation does.
func formatNanos(ns int64) string { return fmt.Sprintf("%019d", ns) }
