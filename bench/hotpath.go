package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The hot path's two costs, measured apart (issue 44): what a synced
// contender costs with no event (quiet: CPU and wake-ups per second), and
// what each event adds (slope: CPU per second fitted against the update
// rate, over the steady state and a short phase at each of -slope-rates).

// slope runs a steady state at each of -slope-rates for -slope-duration
// (no longer, however many updates the server took meanwhile), with enough
// writers in flight for the rate.
func (b *bench) slope(ctx context.Context, ch *driver.Child) ([]driver.SteadyReport, error) {
	var out []driver.SteadyReport
	for _, rate := range b.o.slopeRates {
		o := b.o
		o.rate, o.duration, o.writeFor = rate, b.o.slopeDuration, b.o.slopeDuration // the rate achieved is the point's
		o.steadyWriters = max(o.steadyWriters, rate/100)
		s, achieved, err := b.steady(ctx, ch, o)
		if err != nil {
			return out, fmt.Errorf("slope phase at %d updates/s: %w", rate, err)
		}
		fmt.Fprintf(os.Stderr, "  slope phase: %d updates at %.0f/s, %.3f CPU s over %.1f s\n", s.Events, achieved, s.CPUSeconds, s.Seconds)
		out = append(out, *s)
	}
	return out, nil
}

// hotPathComparisons are the contenders part's ratios of the two costs.
func hotPathComparisons(ss []driver.Summary) []driver.Comparison {
	o, fd, cg := driver.Find(ss, ours), driver.Find(ss, floorDecode), driver.Find(ss, clientGoWatch)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "event_cpu_slope_vs_floor_decode", What: "ours marginal CPU per event (slope against the update rate) / floor-decode's",
			Value: driver.Ratio(o.SlopePer1k, fd.SlopePer1k), Target: 1.05},
		{What: "ours marginal CPU per event / client-go-watchlist's", Value: driver.Ratio(o.SlopePer1k, cg.SlopePer1k), Target: nan},
		{What: "client-go-watchlist marginal CPU per event / floor-decode's", Value: driver.Ratio(cg.SlopePer1k, fd.SlopePer1k), Target: nan},
		{Key: "idle_cpu_vs_floor", What: "ours idle CPU per second, synced, no event / floor-decode's (its watch open)",
			Value: idleRatio(o.QuietCPUms, fd.QuietCPUms), Target: 1.2},
		{Key: "idle_cpu_vs_clientgo", What: "ours idle CPU per second / client-go-watchlist's", Value: idleRatio(o.QuietCPUms, cg.QuietCPUms), Target: 1, Strict: true},
		{What: "ours idle wake-ups per second / floor-decode's", Value: idleRatio(o.QuietWakeups, fd.QuietWakeups), Target: nan},
		{What: "ours idle wake-ups per second / client-go-watchlist's", Value: idleRatio(o.QuietWakeups, cg.QuietWakeups), Target: nan},
	}
}

// reportHotPath prints the contenders' idle and marginal costs, for those
// that measured them.
func reportHotPath(w io.Writer, ss []driver.Summary) {
	t := &driver.Table{Header: []string{"contender", "idle CPU ms/s", "idle wake-ups/s", "CPU s / 1k events at -rate", "marginal CPU s / 1k events"}}
	rows := 0
	for _, s := range ss {
		if math.IsNaN(s.QuietCPUms) && math.IsNaN(s.SlopePer1k) {
			continue
		}
		rows++
		t.Add(s.Contender, driver.Num(s.QuietCPUms, 3), driver.Num(s.QuietWakeups, 1), driver.Num(s.CPUPer1k, 3), driver.Num(s.SlopePer1k, 3))
	}
	if rows == 0 {
		return
	}
	fmt.Fprintf(w, "\nThe hot path's two costs (issue 44), medians over the rounds: idle, synced with no event for -quiet after -quiet-settle "+
		"(CPU, and wake-ups: voluntary context switches of every thread); marginal, the slope of CPU per second against "+
		"updates per second over the steady state and a phase at each of -slope-rates:\n\n%s\n", t)
}
