package main

import (
	"fmt"
	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"io"
	"math"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// slowPairs are the slow-handler contenders, each with the same contender
// without the slow handler.
var slowPairs = [][2]string{{oursSlow, ours}, {clientGoSlow, clientGoWatch}, {clientGoSlowNoGzip, clientGoWatchNoGzip}}

// slowTable shows the steady state of the slow-handler contenders and of
// the same contenders without the slow handler.
func slowTable(ss []driver.Summary) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "updates/s written", "events", "lag p50 ms", "lag p99 ms",
		"watch restarts", "LIST+WATCH requests", "slow handler calls", "its mean call ms", "waiting for it at end",
		"its max queue", "objects updated", "peak RSS after MiB", "live heap after MiB"}}
	for _, p := range slowPairs {
		for _, name := range p {
			s := driver.Find(ss, name)
			if math.IsNaN(s.SteadyEvents) {
				continue
			}
			restarts := driver.Num(s.Restarts, 0)
			if isClientGo(name) {
				restarts = "-" // not observable but as requests
			}
			slow := []string{"-", "-", "-", "-"}
			if name == p[0] { // the slow-handler contender
				slow = []string{driver.Num(s.SlowCalls, 0), driver.Num(s.SlowCallMs, 2), driver.Num(s.SlowPending, 0), driver.Num(s.SlowMaxDepth, 0)}
				if isClientGo(name) {
					slow[3] = "-" // its buffer's size is not observable
				}
			}
			t.Add(append(append([]string{name, driver.Num(s.WriteRate, 0), driver.Num(s.SteadyEvents, 0), driver.Num(s.LagP50ms, 1), driver.Num(s.LagP99ms, 1),
				restarts, driver.Num(s.Requests, 0)}, slow...), driver.Num(s.Pool, 0), driver.Num(s.HWMSteadyMiB, 1), driver.Num(s.LiveHeapMiB, 1))...)
		}
	}
	return t
}

// slowComparisons computes the slow-handler scenario's ratios.
func slowComparisons(ss []driver.Summary) []driver.Comparison {
	so, o := driver.Find(ss, oursSlow), driver.Find(ss, ours)
	sc, c := driver.Find(ss, clientGoSlow), driver.Find(ss, clientGoWatch)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "slow_lag_p50_vs_fast", What: "ours-slow-handler other handler's lag p50 / ours", Value: driver.Ratio(so.LagP50ms, o.LagP50ms), Target: 1.1},
		{What: "ours-slow-handler other handler's lag p99 / ours", Value: driver.Ratio(so.LagP99ms, o.LagP99ms), Target: 1.1},
		{What: "client-go-slow-handler other handler's lag p50 / client-go-watchlist", Value: driver.Ratio(sc.LagP50ms, c.LagP50ms), Target: nan},
		{What: "client-go-slow-handler other handler's lag p99 / client-go-watchlist", Value: driver.Ratio(sc.LagP99ms, c.LagP99ms), Target: nan},
		{What: "client-go-slow-handler-nogzip other handler's lag p99 / client-go-watchlist-nogzip",
			Value: driver.Ratio(driver.Find(ss, clientGoSlowNoGzip).LagP99ms, driver.Find(ss, clientGoWatchNoGzip).LagP99ms), Target: nan},
		{Key: "slow_restarts", What: "ours-slow-handler watch restarts (Metrics.Reconnected + Relisted)", Value: so.Restarts, Count: true},
		{What: "ours-slow-handler LIST+WATCH requests", Value: so.Requests, Count: true},
		{What: "client-go-slow-handler LIST+WATCH requests", Value: sc.Requests, Target: nan, Count: true},
		{What: "ours-slow-handler slow handler's max queue / objects updated", Value: driver.Ratio(so.SlowMaxDepth, so.Pool), Target: 1},
		{What: "ours-slow-handler slow handler's calls / events", Value: driver.Ratio(so.SlowCalls, so.SteadyEvents), Target: nan},
		{What: "client-go-slow-handler slow handler's calls / events", Value: driver.Ratio(sc.SlowCalls, sc.SteadyEvents), Target: nan},
		{Key: "slow_rss_vs_clientgo", What: "ours-slow-handler peak RSS after steady / client-go-slow-handler", Value: driver.Ratio(so.HWMSteadyMiB, sc.HWMSteadyMiB), Target: 1, Strict: true},
		{What: "ours-slow-handler live heap after steady / client-go-slow-handler", Value: driver.Ratio(so.LiveHeapMiB, sc.LiveHeapMiB), Target: 1, Strict: true},
		{What: "ours-slow-handler peak RSS after steady / ours", Value: driver.Ratio(so.HWMSteadyMiB, o.HWMSteadyMiB), Target: nan},
		{What: "client-go-slow-handler peak RSS after steady / client-go-watchlist", Value: driver.Ratio(sc.HWMSteadyMiB, c.HWMSteadyMiB), Target: nan},
	}
}

// reportSlow prints the slow-handler scenario, when one of its contenders ran.
func reportSlow(w io.Writer, ss []driver.Summary, cs []driver.Comparison) {
	if math.IsNaN(driver.Find(ss, oursSlow).SteadyEvents) && math.IsNaN(driver.Find(ss, clientGoSlow).SteadyEvents) {
		return
	}
	fmt.Fprintf(w, "\nSlow handler: a second handler sleeps %s per call during the steady state; lag is the other handler's "+
		"(medians; restarts, requests and max queue are the largest of any round):\n\n%s\n", child.SlowDelay, slowTable(ss))
	for _, s := range ss {
		if s.Reasons != "" {
			fmt.Fprintf(w, "%s restarts: %s\n", s.Contender, s.Reasons)
		}
	}
	fmt.Fprintf(w, "\nSlow handler ratios:\n\n%s\n", driver.ComparisonTable(cs))
}
