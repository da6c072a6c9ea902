package runtime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/internal/testbed"
	"github.com/syncer-gen/syncer-gen/runtime"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
)

// A user without rights sees forbidden errors, retried with growing waits,
// and the syncer never claims to be synced.
func TestForbiddenIsReportedAndRetried(t *testing.T) {
	srv := testbed.Shared(t)
	s, rec := startSyncer(t, srv.ConfigWithToken(testbed.NobodyToken),
		runtime.WithBackoff(20*time.Millisecond, 200*time.Millisecond))
	eventually(t, 20*time.Second, "three errors", func() bool {
		return rec.snapshot(func(r *recorder) bool { return len(r.errs) >= 3 })
	})
	rec.snapshot(func(r *recorder) bool {
		for _, err := range r.errs[:3] {
			var se *runtime.SyncError
			if !errors.As(err, &se) || se.Kind != runtime.KindForbidden || se.RetryIn <= 0 || se.Op == "" {
				t.Errorf("want a forbidden *SyncError with a retry wait, got %#v", err)
			}
		}
		return true
	})
	if s.HasSynced() {
		t.Fatal("HasSynced() with no rights")
	}
}

// Cancelling the context stops everything the syncer started.
func TestCancelLeavesNoGoroutines(t *testing.T) {
	srv := testbed.Shared(t)
	ns := srv.Namespace(t)
	createConfigMaps(t, srv.Client(), ns, 0, 5, nil)
	ignore := goleak.IgnoreCurrent()
	s, err := runtime.New[*corev1.ConfigMap](srv.Config(), configMaps, runtime.WithNamespace(ns))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	if err := s.WaitForSync(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	// Idle keep-alive connections belong to the shared HTTP transport, not to the syncer.
	goleak.VerifyNone(t, ignore,
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"))
}
