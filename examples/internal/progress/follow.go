package progress

import (
	"context"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// Update shows p: the objects received and the server's estimate of the
// total. Without an estimate, the total given to New (if any) stands.
func (b *Bar) Update(p runtime.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.n = int(p.Received)
	if p.Estimate >= 0 {
		b.total = int(p.Estimate)
	}
	if b.tty {
		if b.now().Sub(b.drawn) >= b.interval {
			b.draw()
		}
		return
	}
	b.plain()
}

// Follow shows a syncer's initial-sync progress (pass its Progress method)
// on b until the sync has finished or ctx is done, reading it every
// interval. The syncer counts; the bar only draws.
func Follow(ctx context.Context, b *Bar, progress func() runtime.Progress, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p := progress()
		b.Update(p)
		if !p.Finished.IsZero() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
