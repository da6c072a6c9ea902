package main

import (
	"fmt"
	"io"
	"math"
)

// slowPairs are the slow-handler contenders, each with the same contender
// without the slow handler.
var slowPairs = [][2]string{{oursSlow, ours}, {clientGoSlow, clientGoWatch}}

// slowTable shows the steady state of the slow-handler contenders and of
// the same contenders without the slow handler.
func slowTable(ss []summary) *table {
	t := &table{header: []string{"contender", "updates/s written", "events", "lag p50 ms", "lag p99 ms",
		"watch restarts", "LIST+WATCH requests", "slow handler calls", "its mean call ms", "waiting for it at end",
		"its max queue", "objects updated", "peak RSS after MiB", "live heap after MiB"}}
	for _, p := range slowPairs {
		for _, name := range p {
			s := find(ss, name)
			if math.IsNaN(s.steadyEvents) {
				continue
			}
			restarts := num(s.restarts, 0)
			if name == clientGoSlow || name == clientGoWatch {
				restarts = "-" // not observable but as requests
			}
			slow := []string{"-", "-", "-", "-"}
			if name == oursSlow || name == clientGoSlow {
				slow = []string{num(s.slowCalls, 0), num(s.slowCallMs, 2), num(s.slowPending, 0), num(s.slowMaxDepth, 0)}
				if name == clientGoSlow {
					slow[3] = "-" // its buffer's size is not observable
				}
			}
			t.add(append(append([]string{name, num(s.writeRate, 0), num(s.steadyEvents, 0), num(s.lagP50ms, 1), num(s.lagP99ms, 1),
				restarts, num(s.requests, 0)}, slow...), num(s.pool, 0), num(s.hwmSteadyMiB, 1), num(s.liveHeapMiB, 1))...)
		}
	}
	return t
}

// slowComparisons computes the slow-handler scenario's ratios.
func slowComparisons(ss []summary) []comparison {
	so, o := find(ss, oursSlow), find(ss, ours)
	sc, c := find(ss, clientGoSlow), find(ss, clientGoWatch)
	nan := math.NaN()
	return []comparison{
		{key: "slow_lag_p50_vs_fast", what: "ours-slow-handler other handler's lag p50 / ours", value: ratio(so.lagP50ms, o.lagP50ms), target: 1.1},
		{what: "ours-slow-handler other handler's lag p99 / ours", value: ratio(so.lagP99ms, o.lagP99ms), target: 1.1},
		{what: "client-go-slow-handler other handler's lag p50 / client-go-watchlist", value: ratio(sc.lagP50ms, c.lagP50ms), target: nan},
		{what: "client-go-slow-handler other handler's lag p99 / client-go-watchlist", value: ratio(sc.lagP99ms, c.lagP99ms), target: nan},
		{key: "slow_restarts", what: "ours-slow-handler watch restarts (Metrics.Reconnected + Relisted)", value: so.restarts, count: true},
		{what: "ours-slow-handler LIST+WATCH requests", value: so.requests, count: true},
		{what: "client-go-slow-handler LIST+WATCH requests", value: sc.requests, target: nan, count: true},
		{what: "ours-slow-handler slow handler's max queue / objects updated", value: ratio(so.slowMaxDepth, so.pool), target: 1},
		{what: "ours-slow-handler slow handler's calls / events", value: ratio(so.slowCalls, so.steadyEvents), target: nan},
		{what: "client-go-slow-handler slow handler's calls / events", value: ratio(sc.slowCalls, sc.steadyEvents), target: nan},
		{key: "slow_rss_vs_clientgo", what: "ours-slow-handler peak RSS after steady / client-go-slow-handler", value: ratio(so.hwmSteadyMiB, sc.hwmSteadyMiB), target: 1, strict: true},
		{what: "ours-slow-handler live heap after steady / client-go-slow-handler", value: ratio(so.liveHeapMiB, sc.liveHeapMiB), target: 1, strict: true},
		{what: "ours-slow-handler peak RSS after steady / ours", value: ratio(so.hwmSteadyMiB, o.hwmSteadyMiB), target: nan},
		{what: "client-go-slow-handler peak RSS after steady / client-go-watchlist", value: ratio(sc.hwmSteadyMiB, c.hwmSteadyMiB), target: nan},
	}
}

// reportSlow prints the slow-handler scenario, when one of its contenders ran.
func reportSlow(w io.Writer, ss []summary, cs []comparison) {
	if math.IsNaN(find(ss, oursSlow).steadyEvents) && math.IsNaN(find(ss, clientGoSlow).steadyEvents) {
		return
	}
	fmt.Fprintf(w, "\nSlow handler: a second handler sleeps %s per call during the steady state; lag is the other handler's "+
		"(medians; restarts, requests and max queue are the largest of any round):\n\n%s\n", slowDelay, slowTable(ss))
	for _, s := range ss {
		if s.reasons != "" {
			fmt.Fprintf(w, "%s restarts: %s\n", s.contender, s.reasons)
		}
	}
	fmt.Fprintf(w, "\nSlow handler ratios:\n\n%s\n", comparisonTable(cs))
}
