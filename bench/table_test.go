package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/childload"
)

func TestMachineLine(t *testing.T) {
	nan := math.NaN()
	ss := []driver.Summary{
		{Contender: floorDecode, SyncSeconds: 2, HWMSyncMiB: 50, CPUPer1k: 0.08, SlopePer1k: 0.04, QuietCPUms: 0.5},
		{Contender: keepAll, SyncSeconds: 2.5, HWMSyncMiB: 100, IdleMiB: 11.44, CPUPer1k: nan},
		{Contender: clientGoWatch, SyncSeconds: 4, HWMSyncMiB: 200, IdleMiB: 21, CPUPer1k: 0.4, LagP50ms: 2, LagP99ms: 10, SlopePer1k: 0.05, QuietCPUms: 1},
		{Contender: ours, SyncSeconds: 2.1, HWMSyncMiB: 90, IdleMiB: 12.5, CPUPer1k: 0.1, LagP50ms: 2, LagP99ms: 12, SlopePer1k: 0.042, QuietCPUms: 0.55},
		{Contender: oursStrip, SyncSeconds: 2.1, HWMSyncMiB: 65},
		{Contender: oursSlow, LagP50ms: 2.2, Restarts: 0, HWMSteadyMiB: 60},
		{Contender: clientGoSlow, Restarts: nan, HWMSteadyMiB: 120},
	}
	cs := append(comparisons(ss), hotPathComparisons(ss)...)
	server := []serverRun{
		{contender: ours, idleRSS: 100 * driver.MiB, peak: 110 * driver.MiB, cpu: 2 * time.Second},
		{contender: ours, idleRSS: 100 * driver.MiB, peak: 130 * driver.MiB, cpu: 4 * time.Second},
		{contender: clientGoWatch, idleRSS: 100 * driver.MiB, peak: 120 * driver.MiB, cpu: 4 * time.Second},
		{contender: clientGoList, idleRSS: 100 * driver.MiB, peak: 300 * driver.MiB, cpu: 8 * time.Second},
	}
	crd := []driver.Summary{{Contender: ours, SyncSeconds: 1, HWMSyncMiB: 60, QuietCPUms: 0.5}, {Contender: clientGoWatch, SyncSeconds: 2, HWMSyncMiB: 100},
		{Contender: crCache, Runs: 1, IdleMiB: 33, QuietCPUms: 2}, {Contender: crSyncer, Runs: 1, IdleMiB: 35}}
	warm := []driver.Summary{{Contender: oursWarm, SyncSeconds: 0.2, ReadMiB: 3}, {Contender: ours, SyncSeconds: 1, ReadMiB: 60}, {Contender: floorWarm, SyncSeconds: 0.16}}
	shards := []shardRun{
		{k: 1, serverRun: serverRun{cpu: 2 * time.Second}, alone: 1, aloneRSS: 100 * driver.MiB},
		{k: 4, serverRun: serverRun{cpu: 2500 * time.Millisecond}, alone: 0.3, aloneRSS: 30 * driver.MiB},
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
		"wave_warm_cpu_vs_clientgo=0.25 wave_warm_cpu_vs_clientgo_list=0.50 apiserver_restart_cpu_vs_clientgo=0.25 takeover_s=6.10 " +
		"proj_time_vs_floor_read=1.10 proj_rss_vs_clientgo_strip=0.20 proj_cpu_per_event_vs_floor_decode=0.80 proj_crd_time_vs_full=0.40 proj_crd_rss_vs_full=0.25 " +
		"idle_rss_ours=12.50 idle_rss_clientgo=21.00 idle_rss_floor=11.44 idle_rss_cr_cache=33.00 idle_rss_cr_syncer=35.00 agent_idle_rss=15.50 agent_rss=25.00 " +
		"ryow_dups=0 ryow_reconcile_time_vs_off=1.05 ryow_wait_p99_vs_cache=0.20 ryow_cache_reconcile_time_vs_off=10.00 " +
		"shadow_read_p99_vs_cache=1.10 shadow_reconcile_time_vs_cache=1.05 shadow_differences=0 " +
		"meta_time_vs_best_peer=0.75 meta_rss_vs_best_peer=0.90 meta_server_cpu_vs_best_peer=1.25 meta_bytes_vs_full=0.01 " +
		"unstructured_time_vs_dynamic=0.30 unstructured_rss_vs_dynamic=0.75 idle_rss_dynamic=23.50" +
		" lag_probe_server_cores_100=0.02 lag_probe_requests_per_s_100=20.00 bounded_read_p99_s=1.10" +
		" warm_time_vs_floor=1.25 event_cpu_slope_vs_floor_decode=1.05 proj_event_cpu_slope_vs_floor_decode=0.75" +
		" idle_cpu_vs_floor=1.10 idle_cpu_vs_clientgo=0.55 idle_cpu_vs_cr_cache=0.25 agent_idle_cpu_vs_floor=1.25 agent_idle_cpu_vs_clientgo=0.50" +
		" named_bytes_vs_full=0.01 named_rss_vs_idle_plus_decoded=1.50 named_p99_vs_full=1.10 named_list_bytes_vs_watchlist=2.00" +
		" named_1000_bytes_vs_full=0.10 named_1000_p99_vs_full=3.00 named_server_event_cpu_20_vs_type=2.00 named_server_event_cpu_1000_vs_type=5.00" +
		" named_server_goroutines_1000=2000 named_metagets_bytes_vs_names=0.50 named_metagets_1000_bytes_vs_names=1.50"
	// The best peer of each figure, of those run as their users run them
	// (gzip on): the -nogzip ones, faster here, are in the tables only.
	meta := []driver.Summary{
		{Contender: oursMetadata, SyncSeconds: 0.06, HWMSyncMiB: 36, IdleMiB: 23.5, ServerCPU: 0.04, ReadMiB: 3.6},
		{Contender: clientGoMetadata, SyncSeconds: 0.1, HWMSyncMiB: 40, ServerCPU: 0.05, ReadMiB: 0.2},
		{Contender: clientGoMetadata + noGzip, SyncSeconds: 0.01, HWMSyncMiB: 10, ServerCPU: 0.01, ReadMiB: 3.6},
		{Contender: crMetadata, SyncSeconds: 0.08, HWMSyncMiB: 45, ServerCPU: 0.032, ReadMiB: 0.2},
		{Contender: ours, SyncSeconds: 2, HWMSyncMiB: 360, ReadMiB: 360},
	}
	unstructured := []driver.Summary{{Contender: oursUnstructured, SyncSeconds: 1.5, HWMSyncMiB: 150}, {Contender: clientGoDynamic, SyncSeconds: 5, HWMSyncMiB: 200}}
	ryow := []childload.Outcome{
		{Contender: "cache-off", PerSecond: 100, ListP99: time.Millisecond},
		{Contender: "cache-on", PerSecond: 10, ListP99: 500 * time.Millisecond},
		{Contender: "syncers-off", PerSecond: 105, ListP99: time.Millisecond, Dups: 40},
		{Contender: "syncers-on", PerSecond: 100, ListP99: 100 * time.Millisecond},
		{Contender: "shadow-on", PerSecond: 9.5, ListP99: 550 * time.Millisecond, ShadowCompared: 400, ShadowDiffs: 0},
	}
	projPods := []driver.Summary{
		{Contender: floorRead, SyncSeconds: 2, HWMSyncMiB: 30},
		{Contender: floorDecode, SyncSeconds: 5, CPUPer1k: 0.5, SlopePer1k: 0.4},
		{Contender: clientGoStrip, SyncSeconds: 9, HWMSyncMiB: 500, CPUPer1k: 0.7},
		{Contender: oursProjected, SyncSeconds: 2.2, HWMSyncMiB: 100, CPUPer1k: 0.4, SlopePer1k: 0.3},
	}
	agents := []agentRun{ // medians of each node's runs
		{nodeName: agentNoNode, peak: 15 * driver.MiB}, {nodeName: agentNoNode, peak: 16 * driver.MiB},
		{nodeName: agentNode, pods: 250, peak: 25 * driver.MiB, idle: &driver.QuietReport{Seconds: 10, CPUSeconds: 0.001}},
		{nodeName: agentNode, pods: 250, peak: 24 * driver.MiB, idle: &driver.QuietReport{Seconds: 10, CPUSeconds: 0.002}},
		{nodeName: agentNode, pods: 250, peak: 30 * driver.MiB, idle: &driver.QuietReport{Seconds: 10, CPUSeconds: 0.0005}},
	}
	agentPeerRuns := []driver.Result{
		{Contender: floorDecode, Round: 1, Quiet: &driver.QuietReport{Seconds: 10, CPUSeconds: 0.0008}},
		{Contender: clientGoWatch, Round: 1, Quiet: &driver.QuietReport{Seconds: 10, CPUSeconds: 0.002}},
	}
	projCRs := []driver.Summary{{Contender: ours, SyncSeconds: 1, HWMSyncMiB: 80}, {Contender: oursProjected, SyncSeconds: 0.4, HWMSyncMiB: 20}}
	named := []driver.Summary{
		{Contender: oursNamedFew, ReadMiB: 6, HWMSyncMiB: 20, IdleMiB: 17, StoreMiB: 2, LagP99ms: 11},
		{Contender: oursNamedListFew, ReadMiB: 12},
		{Contender: oursNamedMany, ReadMiB: 60, LagP99ms: 30},
		{Contender: metadataGetsFew, ReadMiB: 3},
		{Contender: metadataGetsMany, ReadMiB: 90},
		{Contender: ours, ReadMiB: 600, LagP99ms: 10},
	}
	steady := func(name string, cpu time.Duration, goroutines float64) driver.Result {
		return driver.Result{Contender: name, Round: 1, Steady: &driver.SteadyReport{Events: 1000},
			Server: &driver.ServerCost{SteadyCPU: cpu, Goroutines: goroutines}}
	}
	namedRuns := []driver.Result{steady(oursNamedFew, 2*time.Second, 40), steady(oursNamedMany, 5*time.Second, 2000), steady(ours, time.Second, 2)}
	if got := driver.MachineLine(slices.Concat(cs, slowComparisons(ss), serverComparisons(server), crdComparisons(crd), warmComparisons(warm),
		shardComparisons(shards), waveComparisons(waves),
		restartComparisons([]restartRun{{contender: restartIdle, cpu: time.Second}, {contender: ours, cpu: 2 * time.Second},
			{contender: clientGoWatch, cpu: 5 * time.Second}}),
		fleetComparisons([]fleetRun{{takeover: 5.5}, {takeover: 6.1}, {takeover: 7.2}}), projectionComparisons(projPods, projCRs), agentComparisons(agents), agentIdleComparisons(agents, agentPeerRuns), consistencyComparisons(ryow),
		metadataComparisons(meta, unstructured), lagComparisons([]lagRun{
			{syncers: 100, baseCPU: 3 * time.Second, probeCPU: 3600 * time.Millisecond, baseReqs: 10, probeReq: 610},
			{syncers: 1, baseCPU: time.Second, probeCPU: time.Second, reads: []time.Duration{1100 * time.Millisecond, time.Second}}}),
		namedComparisons(named, namedRuns)), machineKeys); got != want {
		t.Errorf("machine line:\n%s\nwant:\n%s", got, want)
	}
	for _, c := range metadataComparisons(meta, unstructured) {
		for key, best := range map[string]string{"meta_time_vs_best_peer": crMetadata, "meta_rss_vs_best_peer": clientGoMetadata, "meta_server_cpu_vs_best_peer": crMetadata} {
			if c.Key == key && !strings.Contains(c.What, "("+best+")") {
				t.Errorf("%s: %q does not name the best peer %s", key, c.What, best)
			}
		}
	}
	if l := driver.MachineLine(metadataComparisons(nil, nil), machineKeys); !strings.Contains(l, "meta_time_vs_best_peer=nan") || !strings.Contains(l, "unstructured_rss_vs_dynamic=nan") {
		t.Errorf("metadata part not run: %s", l)
	}
	for _, c := range cs {
		if c.Key == "cpu_per_event_vs_clientgo" && (!math.IsNaN(c.Target) || !strings.Contains(c.What, "target retired")) {
			t.Errorf("cpu_per_event_vs_clientgo: target %v, %q: its target is retired (issue 44)", c.Target, c.What)
		}
	}
	met := map[string]bool{}
	for _, c := range cs {
		met[c.What] = c.Met()
	}
	if !met["ours time to synced / floor-decode"] || !met["ours steady lag p50 / client-go-watchlist"] {
		t.Errorf("targets at or under the bound not met: %v", met)
	}
	if met["ours steady lag p99 / client-go-watchlist"] {
		t.Errorf("lag p99 of 1.2x counted as met")
	}
	for _, tc := range []struct {
		c    driver.Comparison
		want bool
	}{
		{driver.Comparison{Value: 1.004, Target: 1}, true},  // printed 1.00x
		{driver.Comparison{Value: 1.006, Target: 1}, false}, // printed 1.01x
		{driver.Comparison{Value: 0.996, Target: 1, Strict: true}, false},
		{driver.Comparison{Value: 0.99, Target: 1, Strict: true}, true},
		{driver.Comparison{Value: math.NaN(), Target: 1}, false},
	} {
		if got := tc.c.Met(); got != tc.want {
			t.Errorf("%+v met = %v, want %v", tc.c, got, tc.want)
		}
	}
	// A contender that did not run gives nan, and the target is not met.
	cs = comparisons(ss[:3])
	if !strings.Contains(driver.MachineLine(cs, machineKeys), "time_vs_floor=nan") || !strings.Contains(driver.MachineLine(cs, machineKeys), "slow_restarts=nan") ||
		!strings.Contains(driver.MachineLine(serverComparisons(nil), machineKeys), "server_rss_vs_clientgo_list=nan") || cs[0].Met() {
		t.Errorf("missing ours: %s, met=%v", driver.MachineLine(cs, machineKeys), cs[0].Met())
	}
}

func TestReportEndsWithMachineLine(t *testing.T) {
	var b strings.Builder
	report(&b, "setup", outcome{main: []driver.Result{{Contender: ours, Sync: driver.SyncReport{SyncSeconds: 1, Objects: 1}}}, names: []string{ours}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "bench: time_vs_floor=") {
		t.Errorf("last line %q", last)
	}
}
