package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tb := &table{header: []string{"name", "value"}}
	tb.add("a", "1.5")
	tb.add("longer", "12")
	want := "" +
		"| name   | value |\n" +
		"| ------ | ----: |\n" +
		"| a      |   1.5 |\n" +
		"| longer |    12 |\n"
	if got := tb.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableShortColumnsAndRows(t *testing.T) {
	tb := &table{header: []string{"x", "y"}}
	tb.add("only")
	lines := strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		if len(l) != len(lines[0]) {
			t.Errorf("ragged line %q", l)
		}
	}
	if lines[2] != "| only |     |" {
		t.Errorf("missing cell not padded: %q", lines[2])
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{num(1.23456, 3), "1.235"},
		{num(math.NaN(), 1), "-"},
		{times(0.8), "0.80x"},
		{times(math.Inf(1)), "-"},
		{fixed2(1.005), "1.00"},
		{fixed2(1.236), "1.24"},
		{fixed2(math.NaN()), "nan"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestMachineLine(t *testing.T) {
	nan := math.NaN()
	ss := []summary{
		{contender: floorDecode, syncSeconds: 2, hwmSyncMiB: 50, cpuPer1k: 0.08},
		{contender: keepAll, syncSeconds: 2.5, hwmSyncMiB: 100, cpuPer1k: nan},
		{contender: clientGoWatch, syncSeconds: 4, hwmSyncMiB: 200, cpuPer1k: 0.4, lagP50ms: 2, lagP99ms: 10},
		{contender: ours, syncSeconds: 2.1, hwmSyncMiB: 90, cpuPer1k: 0.1, lagP50ms: 2, lagP99ms: 12},
		{contender: oursStrip, syncSeconds: 2.1, hwmSyncMiB: 65},
		{contender: oursSlow, lagP50ms: 2.2, restarts: 0, hwmSteadyMiB: 60},
		{contender: clientGoSlow, restarts: nan, hwmSteadyMiB: 120},
	}
	cs := comparisons(ss)
	server := []serverRun{
		{contender: ours, idleRSS: 100 * mib, peak: 110 * mib, cpu: 2 * time.Second},
		{contender: ours, idleRSS: 100 * mib, peak: 130 * mib, cpu: 4 * time.Second},
		{contender: clientGoWatch, idleRSS: 100 * mib, peak: 120 * mib, cpu: 4 * time.Second},
		{contender: clientGoList, idleRSS: 100 * mib, peak: 300 * mib, cpu: 8 * time.Second},
	}
	crd := []summary{{contender: ours, syncSeconds: 1, hwmSyncMiB: 60}, {contender: clientGoWatch, syncSeconds: 2, hwmSyncMiB: 100}}
	warm := []summary{{contender: oursWarm, syncSeconds: 0.2, readMiB: 3}, {contender: ours, syncSeconds: 1, readMiB: 60}}
	shards := []shardRun{
		{k: 1, serverRun: serverRun{cpu: 2 * time.Second}, alone: 1, aloneRSS: 100 * mib},
		{k: 4, serverRun: serverRun{cpu: 2500 * time.Millisecond}, alone: 0.3, aloneRSS: 30 * mib},
	}
	waves := []serverRun{
		{contender: oursWarm, cpu: time.Second},
		{contender: clientGoWatch, cpu: 4 * time.Second},
		{contender: clientGoList, cpu: 2 * time.Second},
	}
	want := "bench: time_vs_floor=1.05 rss_vs_keepall=0.90 rss_vs_clientgo=0.45 time_vs_clientgo=0.53 rss_strip_vs_keepall=0.65 cpu_per_event_vs_clientgo=0.25 " +
		"slow_lag_p50_vs_fast=1.10 slow_restarts=0 slow_rss_vs_clientgo=0.50 " +
		"server_rss_vs_clientgo_list=0.10 server_cpu_vs_clientgo_watchlist=0.75 crd_time_vs_clientgo=0.50 crd_rss_vs_clientgo=0.60 " +
		"warm_time_vs_cold=0.20 warm_bytes_vs_cold=0.05 cpu_per_event_vs_floor=1.25 " +
		"shard_time_vs_unsharded=0.30 shard_rss_vs_unsharded=0.30 shard_server_cpu_vs_unsharded=1.25 cr_time_vs_cache=nan cr_rss_vs_cache=nan cold_server_cpu_vs_clientgo_best=0.75 " +
		"wave_warm_cpu_vs_clientgo=0.25 wave_warm_cpu_vs_clientgo_list=0.50 apiserver_restart_cpu_vs_clientgo=0.25 takeover_s=6.10"
	if got := machineLine(slices.Concat(cs, slowComparisons(ss), serverComparisons(server), crdComparisons(crd), warmComparisons(warm),
		shardComparisons(shards), waveComparisons(waves),
		restartComparisons([]restartRun{{contender: restartIdle, cpu: time.Second}, {contender: ours, cpu: 2 * time.Second},
			{contender: clientGoWatch, cpu: 5 * time.Second}}),
		fleetComparisons([]fleetRun{{takeover: 5.5}, {takeover: 6.1}, {takeover: 7.2}}))); got != want {
		t.Errorf("machine line:\n%s\nwant:\n%s", got, want)
	}
	met := map[string]bool{}
	for _, c := range cs {
		met[c.what] = c.met()
	}
	if !met["ours time to synced / floor-decode"] || !met["ours steady lag p50 / client-go-watchlist"] {
		t.Errorf("targets at or under the bound not met: %v", met)
	}
	if met["ours steady lag p99 / client-go-watchlist"] {
		t.Errorf("lag p99 of 1.2x counted as met")
	}
	for _, tc := range []struct {
		c    comparison
		want bool
	}{
		{comparison{value: 1.004, target: 1}, true},  // printed 1.00x
		{comparison{value: 1.006, target: 1}, false}, // printed 1.01x
		{comparison{value: 0.996, target: 1, strict: true}, false},
		{comparison{value: 0.99, target: 1, strict: true}, true},
		{comparison{value: math.NaN(), target: 1}, false},
	} {
		if got := tc.c.met(); got != tc.want {
			t.Errorf("%+v met = %v, want %v", tc.c, got, tc.want)
		}
	}
	// A contender that did not run gives nan, and the target is not met.
	cs = comparisons(ss[:3])
	if !strings.Contains(machineLine(cs), "time_vs_floor=nan") || !strings.Contains(machineLine(cs), "slow_restarts=nan") ||
		!strings.Contains(machineLine(serverComparisons(nil)), "server_rss_vs_clientgo_list=nan") || cs[0].met() {
		t.Errorf("missing ours: %s, met=%v", machineLine(cs), cs[0].met())
	}
}

func TestReportEndsWithMachineLine(t *testing.T) {
	var b strings.Builder
	report(&b, "setup", outcome{main: []result{{contender: ours, sync: syncReport{SyncSeconds: 1, Objects: 1}}}, names: []string{ours}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "bench: time_vs_floor=") {
		t.Errorf("last line %q", last)
	}
}
