package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// medianTable is the table of each contender's medians.
func medianTable(ss []summary) *table {
	t := &table{header: []string{"contender", "runs", "objects", "time to synced s", "min-max s",
		"peak RSS at sync MiB", "peak RSS at exit MiB", "allocated MiB",
		"CPU s / 1k events", "lag p50 ms", "lag p99 ms"}}
	for _, s := range ss {
		t.add(s.contender, fmt.Sprint(s.runs), num(s.objects, 0), num(s.syncSeconds, 3),
			num(s.syncMin, 2)+"-"+num(s.syncMax, 2),
			num(s.hwmSyncMiB, 1), num(s.hwmExitMiB, 1), num(s.allocMiB, 0),
			num(s.cpuPer1k, 3), num(s.lagP50ms, 1), num(s.lagP99ms, 1))
	}
	return t
}

// comparison is one ratio of ours to a reference, with its target.
type comparison struct {
	key    string // name in the machine-readable line; "" for none
	what   string
	value  float64
	target float64 // NaN: shown for context, no target
	strict bool    // target is "<", not "<="
	count  bool    // value is a count, not a ratio
	secs   bool    // value is in seconds, not a ratio
}

// text formats the value for the ratio table.
func (c comparison) text() string {
	switch {
	case c.count:
		return num(c.value, 0)
	case c.secs:
		return num(c.value, 2) + " s"
	}
	return times(c.value)
}

// field formats the value for the machine-readable line.
func (c comparison) field() string {
	if c.count && !math.IsNaN(c.value) {
		return num(c.value, 0)
	}
	return fixed2(c.value)
}

// met tells whether the ratio meets its target, judged on the two decimals
// that the report prints, so that "1.00x" is never shown as missing "<= 1.00".
func (c comparison) met() bool {
	if math.IsNaN(c.value) {
		return false
	}
	v := math.Round(c.value*100) / 100
	if c.strict {
		return v < c.target
	}
	return v <= c.target
}

func (c comparison) targetText() string {
	if math.IsNaN(c.target) {
		return "-"
	}
	op := "<="
	if c.strict {
		op = "<"
	}
	return fmt.Sprintf("%s %.2f", op, c.target)
}

// comparisons computes the ratios the issue asks for from the medians.
func comparisons(ss []summary) []comparison {
	o, st := find(ss, ours), find(ss, oursStrip)
	fd, ka, cg := find(ss, floorDecode), find(ss, keepAll), find(ss, clientGoWatch)
	return []comparison{
		{"time_vs_floor", "ours time to synced / floor-decode", ratio(o.syncSeconds, fd.syncSeconds), 1.05, false, false, false},
		{"rss_vs_keepall", "ours peak RSS at sync / keep-all", ratio(o.hwmSyncMiB, ka.hwmSyncMiB), 1.0, false, false, false},
		{"rss_strip_vs_keepall", "ours-strip peak RSS at sync / keep-all", ratio(st.hwmSyncMiB, ka.hwmSyncMiB), 0.7, false, false, false},
		{"rss_vs_clientgo", "ours peak RSS at sync / client-go-watchlist", ratio(o.hwmSyncMiB, cg.hwmSyncMiB), 1.0, true, false, false},
		{"time_vs_clientgo", "ours time to synced / client-go-watchlist", ratio(o.syncSeconds, cg.syncSeconds), 1.0, true, false, false},
		{"cpu_per_event_vs_clientgo", "ours steady CPU per event / client-go-watchlist", ratio(o.cpuPer1k, cg.cpuPer1k), 0.5, false, false, false},
		{"", "ours steady lag p50 / client-go-watchlist", ratio(o.lagP50ms, cg.lagP50ms), 1.0, false, false, false},
		{"", "ours steady lag p99 / client-go-watchlist", ratio(o.lagP99ms, cg.lagP99ms), 1.0, false, false, false},
		{"", "ours time to synced / keep-all", ratio(o.syncSeconds, ka.syncSeconds), math.NaN(), false, false, false},
		{"cpu_per_event_vs_floor", "ours steady CPU per event / floor-decode", ratio(o.cpuPer1k, fd.cpuPer1k), 1.1, false, false, false},
		{"", "client-go-watchlist steady CPU per event / floor-decode", ratio(cg.cpuPer1k, fd.cpuPer1k), math.NaN(), false, false, false},
	}
}

func comparisonTable(cs []comparison) *table {
	t := &table{header: []string{"ratio (medians)", "value", "target", "met"}}
	for _, c := range cs {
		met := "no"
		switch {
		case math.IsNaN(c.target):
			met = "-"
		case c.met():
			met = "yes"
		}
		t.add(c.what, c.text(), c.targetText(), met)
	}
	return t
}

// machineLine is the benchmark's last line, in the order.
func machineLine(cs []comparison) string {
	get := func(key string) string {
		for _, c := range cs {
			if c.key == key {
				return c.field()
			}
		}
		return "nan"
	}
	keys := []string{"time_vs_floor", "rss_vs_keepall", "rss_vs_clientgo", "time_vs_clientgo", "rss_strip_vs_keepall", "cpu_per_event_vs_clientgo",
		"slow_lag_p50_vs_fast", "slow_restarts", "slow_rss_vs_clientgo",
		"server_rss_vs_clientgo_list", "server_cpu_vs_clientgo_watchlist", "crd_time_vs_clientgo", "crd_rss_vs_clientgo",
		"warm_time_vs_cold", "warm_bytes_vs_cold", "cpu_per_event_vs_floor",
		"shard_time_vs_unsharded", "shard_rss_vs_unsharded", "shard_server_cpu_vs_unsharded", "cr_time_vs_cache", "cr_rss_vs_cache", "cold_server_cpu_vs_clientgo_best", "wave_warm_cpu_vs_clientgo", "wave_warm_cpu_vs_clientgo_list", "apiserver_restart_cpu_vs_clientgo", "takeover_s"}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + get(k)
	}
	return "bench: " + strings.Join(parts, " ")
}

// outcome is what the parts of the benchmark measured; empty for a part
// that did not run.
type outcome struct {
	main     []result // the contenders, one at a time
	names    []string // the contenders, in the order asked
	server   []serverRun
	clients  int
	crd      []result
	warm     []result
	shards   []shardRun
	waves    []serverRun // the node-agent wave
	fleet    []fleetRun
	restarts []restartRun
	agents   int
	pods     int
}

// report prints the tables and ends with the machine-readable line.
func report(w io.Writer, setup string, out outcome) {
	ss := summarize(out.main, out.names)
	cs := comparisons(ss)
	fmt.Fprintf(w, "\n%s\n", setup)
	if len(out.main) > 0 {
		fmt.Fprintf(w, "\nMedians over the rounds:\n\n%s\n", medianTable(ss))
		for _, name := range out.names {
			if c, ok := contenderByName(name); ok {
				fmt.Fprintf(w, "- %s: %s\n", c.name, c.what)
			}
		}
		fmt.Fprintln(w)
		for _, s := range ss {
			if s.notes != "" {
				fmt.Fprintf(w, "%s: %s\n", s.contender, s.notes)
			}
		}
		fmt.Fprintf(w, "\nRatios (lower is better for ours):\n\n%s\n", comparisonTable(cs))
	}
	scs := slowComparisons(ss)
	reportSlow(w, ss, scs)
	svcs := serverComparisons(out.server)
	reportServerCost(w, out.server, out.clients, svcs)
	crdNames := make([]string, len(crdContenders))
	for i, c := range crdContenders {
		crdNames[i] = c.name
	}
	css := summarize(out.crd, crdNames)
	ccs := crdComparisons(css)
	reportCRD(w, out.crd, css, ccs)
	wss := summarize(out.warm, []string{oursWarm, ours, clientGoWatch})
	wcs := warmComparisons(wss)
	reportWarm(w, out.warm, wss, wcs)
	shcs := shardComparisons(out.shards)
	reportShards(w, out.shards, shcs)
	wvcs := waveComparisons(out.waves)
	reportWave(w, out.waves, out.agents, out.pods, wvcs)
	rcs := restartComparisons(out.restarts)
	reportRestart(w, out.restarts, out.agents, out.pods, rcs)
	fcs := fleetComparisons(out.fleet)
	reportFleet(w, out.fleet, out.pods, fcs)
	fmt.Fprintln(w, machineLine(slices.Concat(cs, scs, svcs, ccs, wcs, shcs, wvcs, rcs, fcs)))
}
