package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The idle measurement (issue 44), the same for every process measured
// (the children of the contenders, the node agent): read from outside the
// process (/proc/<pid>/task/*, driver.ReadThreads), so that measuring it
// wakes none of its threads; after a settle that waits out what the sync
// left (the collector and the scavenger returning its garbage, the last
// timers of the sync), until no thread woke for quietStill, at most
// -quiet-settle; then over -quiet with no event.

// quietStill is how long no thread of a settling process may wake before
// its idle window begins; quietPoll how often the settle reads it.
const (
	quietStill = time.Second
	quietPoll  = 100 * time.Millisecond
)

// quietWindow is how long contender's idle window lasts: -quiet, which
// holds client-go's HTTP/2 ping (30 s after the last frame), or, for ours
// with one mechanism on, three of its periods (15 s): their window
// measures what the mechanism costs a period; the ping costs them what it
// costs ours, whose window holds it. Three contenders of 15 s a round
// rather than 35 s: a minute less a round of make bench.
func (b *bench) quietWindow(contender string) time.Duration {
	switch contender {
	case oursResync, oursDrift, oursSnapshot:
		return min(b.o.quiet, 3*child.MechanismPeriod)
	}
	return b.o.quiet
}

// quiet measures the synced process pid idle: its settle, then its window.
func (b *bench) quiet(ctx context.Context, pid int, window time.Duration) (*driver.QuietReport, error) {
	start := time.Now()
	prev, err := driver.ReadThreads(pid)
	if err != nil {
		return nil, fmt.Errorf("idle: %w", err)
	}
	still := start
	for time.Since(still) < quietStill && time.Since(start) < b.o.quietSettle {
		if err := sleepCtx(ctx, quietPoll); err != nil {
			return nil, err
		}
		cur, err := driver.ReadThreads(pid)
		if err != nil {
			return nil, fmt.Errorf("idle, settling: %w", err)
		}
		if d, _ := cur.Since(prev); d.Wakeups > 0 {
			still = time.Now()
		}
		prev = cur
	}
	settled := time.Since(start)
	t0 := time.Now()
	if err := sleepCtx(ctx, window); err != nil {
		return nil, err
	}
	after, err := driver.ReadThreads(pid)
	if err != nil {
		return nil, fmt.Errorf("idle, at the window's end: %w", err)
	}
	d, busiest := after.Since(prev)
	return &driver.QuietReport{Seconds: time.Since(t0).Seconds(), CPUSeconds: d.CPU.Seconds(), Wakeups: d.Wakeups,
		SettleSeconds: settled.Seconds(), Busiest: busiest}, nil
}

// sleepCtx waits d, or less if ctx ends first: then it returns ctx's error.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// describeQuiet tells an idle measurement in a line.
func describeQuiet(q *driver.QuietReport) string {
	return fmt.Sprintf("idle after %.1f s of settle: %.3f CPU ms/s, %d wake-ups in %.0f s (the busiest thread %d)",
		q.SettleSeconds, q.CPUSeconds/q.Seconds*1000, q.Wakeups, q.Seconds, q.Busiest)
}

// idleRatio is the ratio of two idle costs, a over b: two processes that
// did not run at all cost the same (1); one that ran against one that did
// not, +Inf.
func idleRatio(a, b float64) float64 {
	switch {
	case a == 0 && b == 0:
		return 1
	case b == 0 && a > 0:
		return math.Inf(1)
	}
	return driver.Ratio(a, b)
}
