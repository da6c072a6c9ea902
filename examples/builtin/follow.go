package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/client-go/rest"
)

// show is what follow prints of a resource.
type show[T runtime.Object] struct {
	describe func(T) string          // what matters of an object, in an event line
	changes  func(old, obj T) string // what changed in an update; nil: describe the new object
	summary  func(io.Writer)         // a few lines about the store before the synced line; may be nil
}

// follow runs s: a progress bar on stderr during the initial sync, then the
// synced line on stdout, then (without --once) a line per live event until
// ctx is done, as sh says.
func follow[T runtime.Object](ctx context.Context, cfg *rest.Config, s *runtime.Syncer[T], o options,
	stdout, stderr io.Writer, sh show[T]) error {
	res := s.Resource()
	bar := progress.New(stderr, "syncing "+res.Resource, -1)
	p := newPrinter(s, bar, !o.once, stdout, stderr, sh)
	s.AddHandler(p)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	go progress.Follow(ctx, bar, s.Progress, 100*time.Millisecond)
	if err := s.WaitForSync(ctx); err != nil {
		cancel()
		<-done
		if s.HasSynced() {
			// Interrupted as it synced (its synced line may be out): it
			// did sync, and stops as asked.
			return nil
		}
		return fmt.Errorf("%s: not synced: %w%s", res, err, p.lastError())
	}
	if !o.once {
		<-ctx.Done()
	}
	cancel()
	return <-done
}
