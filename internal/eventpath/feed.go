package eventpath

import (
	"context"
	"testing"
	"time"

	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Feed is a Syncer that synced from an API and plays one update after
// another into it, each once its handler got the one before.
type Feed[T runtime.Object] struct {
	tb      testing.TB
	api     *API
	updates []*Update
	next    int
	rv      uint64
	got     chan struct{}
	timeout *time.Timer // reused: Step allocates nothing of its own
}

// stepTimeout bounds a Step: a Syncer that never hands the update to its
// handler fails the test rather than hanging it.
const stepTimeout = time.Minute

// Start runs s, whose requests go to api (built with api.Config()), until
// the test ends; it adds a handler that takes the updates, and returns
// once the handler got the initial state. The updates are MODIFIED events
// of the first objects of api (at most 512, in turn), unchanged but for
// their resourceVersion, as a status write makes them.
func Start[T runtime.Object](tb testing.TB, api *API, s *runtime.Syncer[T]) *Feed[T] {
	tb.Helper()
	f := &Feed[T]{tb: tb, api: api, rv: api.LastRV(), got: make(chan struct{}, 1)}
	objs := api.Objects()[:min(len(api.Objects()), 512)]
	for _, o := range objs {
		u, err := NewUpdate(api.media, o.DeepCopyObject())
		if err != nil {
			tb.Fatal(err)
		}
		f.updates = append(f.updates, u)
	}
	// A resync's updates (WithResyncPeriod) must not block the handler:
	// with nobody stepping, the signal is dropped.
	reg := s.AddHandler(runtime.HandlerFuncs[T]{UpdateFunc: func(_, _ T) {
		select {
		case f.got <- struct{}{}:
		default:
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Run: %v", err)
		}
	})
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer wcancel()
	if err := reg.WaitForSync(wctx); err != nil {
		tb.Fatalf("no sync: %v (last error: %v)", err, s.LastError())
	}
	f.timeout = time.NewTimer(stepTimeout)
	f.timeout.Stop()
	return f
}

// Step plays the next update and returns once the handler got it.
func (f *Feed[T]) Step() {
	u := f.updates[f.next]
	f.next = (f.next + 1) % len(f.updates)
	f.rv++
	u.SetResourceVersion(f.rv)
	if err := f.api.Send(u.Frame); err != nil {
		f.tb.Fatalf("update %d: %v", f.rv, err)
	}
	f.timeout.Reset(stepTimeout)
	select {
	case <-f.got:
		f.timeout.Stop()
	case <-f.timeout.C:
		f.tb.Fatalf("update %d: the handler did not get it in %s", f.rv, stepTimeout)
	}
}

// Objects returns n objects made by mk, as the API takes them.
func Objects[O kruntime.Object](n int, mk func(i int) O) []kruntime.Object {
	out := make([]kruntime.Object, n)
	for i := range out {
		out[i] = mk(i)
	}
	return out
}
