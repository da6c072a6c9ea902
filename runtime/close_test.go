package runtime_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Issue 42, defect 6: Close on a Syncer that never ran ends its handlers:
// every Registration's Done closes, no goroutine is left, the store is
// emptied; Run after it returns an error at once.
func TestCloseBeforeRun(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	s, d := runtime.NewDriver[*corev1.ConfigMap](runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true})
	d.Add(child("a", "10", "p"))
	var regs []*runtime.Registration
	for range 3 {
		regs = append(regs, s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Close(ctx); err != nil {
		t.Fatalf("Close of a Syncer that never ran: %v", err)
	}
	for i, r := range regs {
		select {
		case <-r.Done():
		default:
			t.Fatalf("handler %d's Registration.Done is open after Close", i)
		}
	}
	if n := len(s.Store().List()); n != 0 {
		t.Fatalf("the store holds %d objects after Close", n)
	}
	if err := s.Run(ctx); err == nil {
		t.Fatal("Run after Close returned nil; want an error at once")
	}
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left by a Syncer closed before it ran: %v", err)
	}
	late := s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{})
	select {
	case <-late.Done():
	case <-ctx.Done():
		t.Fatal("a handler added after Close never ended")
	}
	if err := goleak.Find(ignore); err != nil {
		t.Fatalf("goroutines left by a handler added after Close: %v", err)
	}
}
