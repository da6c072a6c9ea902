package runtime

import (
	"sync/atomic"
	"time"
)

// Progress tells how far the current (or last) full sync has come.
type Progress struct {
	// Received counts the objects received so far.
	Received int64
	// Estimate is the number of objects the server said it holds when the
	// sync began, or -1 where it did not say (selectors, old servers).
	Estimate int64
	// Started is when the sync began; zero before the first.
	Started time.Time
	// Finished is when it completed; zero while it is under way.
	Finished time.Time
	// Mode is how the last completed sync got the initial state.
	Mode Mode
}

// Elapsed returns how long the sync took, or has taken so far.
func (p Progress) Elapsed() time.Duration {
	switch {
	case p.Started.IsZero():
		return 0
	case p.Finished.IsZero():
		return time.Since(p.Started)
	}
	return p.Finished.Sub(p.Started)
}

// Fraction returns Received / Estimate, capped at 1, or -1 with no estimate.
func (p Progress) Fraction() float64 {
	if p.Estimate < 0 {
		return -1
	}
	if p.Estimate == 0 || p.Received >= p.Estimate {
		return 1
	}
	return float64(p.Received) / float64(p.Estimate)
}

// progress is the Syncer's side of Progress: written by Run, read anywhere.
type progress struct {
	received atomic.Int64
	estimate atomic.Int64
	started  atomic.Int64 // unix nanoseconds
	finished atomic.Int64
}

func (p *progress) begin(now time.Time) {
	p.received.Store(0)
	p.estimate.Store(-1)
	p.finished.Store(0)
	p.started.Store(now.UnixNano())
}

func (p *progress) finish(now time.Time) { p.finished.Store(now.UnixNano()) }

// Progress returns how far the current (or last) full sync has come; it
// may be called from any goroutine.
func (s *Syncer[T]) Progress() Progress {
	if s.lanes != nil {
		return s.lanes.progress()
	}
	p := Progress{
		Received: s.progress.received.Load(),
		Estimate: s.progress.estimate.Load(),
		Mode:     s.Mode(),
	}
	if t := s.progress.started.Load(); t != 0 {
		p.Started = time.Unix(0, t)
	} else {
		p.Estimate = -1
	}
	if t := s.progress.finished.Load(); t != 0 {
		p.Finished = time.Unix(0, t)
	}
	return p
}
