package child

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LagObserver records, for each update a handler gets during the steady
// state, the time from the parent's write (in WrittenAtAnnotation) to the
// handler. Parent and child run on one machine, so the clocks agree.
type LagObserver struct {
	mu     sync.Mutex
	on     bool
	lags   []time.Duration
	target int
	done   chan struct{}
}

func NewLagObserver() *LagObserver { return &LagObserver{} }

// Observe is called by a handler with an updated object.
func (o *LagObserver) Observe(obj metav1.Object) {
	now := time.Now().UnixNano()
	stamp, ok := obj.GetAnnotations()[WrittenAtAnnotation]
	if !ok {
		stamp = obj.GetLabels()[WrittenAtAnnotation] // the projection part's pods
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

// start begins recording, afresh: a child may run several steady states
// (the bench's slope phases, one per rate), each waited for on its own.
func (o *LagObserver) start() {
	o.mu.Lock()
	o.on = true
	o.lags, o.target = nil, 0
	o.mu.Unlock()
}

// wait returns the lags once n updates were seen, or fails after timeout.
func (o *LagObserver) wait(ctx context.Context, n int, timeout time.Duration) ([]time.Duration, error) {
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
