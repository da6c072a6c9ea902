package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// follow runs s, whose store is store and whose widgets read reads: a
// progress bar on stderr during the initial sync, then the synced line and
// the summary on stdout, then (without --once) a line per live event until
// ctx is done.
func follow[T runtime.Object](ctx context.Context, s *runtime.Syncer[T], store widgetStore[T], read func(T) fields,
	o options, stdout, stderr io.Writer) error {
	p := newPrinter(s, store, read, stdout, progress.New(stderr, "syncing widgets", -1), !o.once)
	s.AddHandler(p.handler())

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	go progress.Follow(ctx, p.bar, s.Progress, 100*time.Millisecond)
	if err := s.WaitForSync(ctx); err != nil {
		cancel()
		<-done
		return fmt.Errorf("widgets not synced: %w%s", err, p.lastError())
	}
	if !o.once {
		<-ctx.Done() // live events are printed by the handler until then
	}
	cancel()
	return <-done
}
