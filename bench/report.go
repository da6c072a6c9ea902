package main

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/childload"
)

// comparisons computes the ratios the issue asks for from the medians.
func comparisons(ss []driver.Summary) []driver.Comparison {
	o, st := driver.Find(ss, ours), driver.Find(ss, oursStrip)
	fd, ka, cg := driver.Find(ss, floorDecode), driver.Find(ss, keepAll), driver.Find(ss, clientGoWatch)
	cgn := driver.Find(ss, clientGoWatchNoGzip)
	return []driver.Comparison{
		{Key: "time_vs_floor", What: "ours time to synced / floor-decode", Value: driver.Ratio(o.SyncSeconds, fd.SyncSeconds), Target: 1.05},
		{Key: "rss_vs_keepall", What: "ours peak RSS at sync / keep-all", Value: driver.Ratio(o.HWMSyncMiB, ka.HWMSyncMiB), Target: 1.0},
		{Key: "rss_strip_vs_keepall", What: "ours-strip peak RSS at sync / keep-all", Value: driver.Ratio(st.HWMSyncMiB, ka.HWMSyncMiB), Target: 0.7},
		{Key: "rss_vs_clientgo", What: "ours peak RSS at sync / client-go-watchlist", Value: driver.Ratio(o.HWMSyncMiB, cg.HWMSyncMiB), Target: 1.0, Strict: true},
		{Key: "time_vs_clientgo", What: "ours time to synced / client-go-watchlist", Value: driver.Ratio(o.SyncSeconds, cg.SyncSeconds), Target: 1.0, Strict: true},
		{Key: "cpu_per_event_vs_clientgo", What: "ours steady CPU per event / client-go-watchlist (target retired: below the floor, issue 44)", Value: driver.Ratio(o.CPUPer1k, cg.CPUPer1k), Target: math.NaN()},
		{What: "ours steady lag p50 / client-go-watchlist", Value: driver.Ratio(o.LagP50ms, cg.LagP50ms), Target: 1.0},
		{What: "ours steady lag p99 / client-go-watchlist", Value: driver.Ratio(o.LagP99ms, cg.LagP99ms), Target: 1.0},
		{What: "ours time to synced / keep-all", Value: driver.Ratio(o.SyncSeconds, ka.SyncSeconds), Target: math.NaN()},
		{Key: "cpu_per_event_vs_floor", What: "ours steady CPU per event / floor-decode", Value: driver.Ratio(o.CPUPer1k, fd.CPUPer1k), Target: 1.1},
		{What: "ours time to synced / client-go-watchlist-nogzip", Value: driver.Ratio(o.SyncSeconds, cgn.SyncSeconds), Target: math.NaN()},
		{What: "ours peak RSS at sync / client-go-watchlist-nogzip", Value: driver.Ratio(o.HWMSyncMiB, cgn.HWMSyncMiB), Target: math.NaN()},
		{What: "ours steady CPU per event / client-go-watchlist-nogzip", Value: driver.Ratio(o.CPUPer1k, cgn.CPUPer1k), Target: math.NaN()},
		{What: "client-go-watchlist-nogzip time to synced / client-go-watchlist", Value: driver.Ratio(cgn.SyncSeconds, cg.SyncSeconds), Target: math.NaN()},
		{What: "client-go-watchlist steady CPU per event / floor-decode", Value: driver.Ratio(cg.CPUPer1k, fd.CPUPer1k), Target: math.NaN()},
		{What: "ours peak RSS over its idle peak / keep-all's (the data, without the programs)", Value: driver.Ratio(o.HWMSyncMiB-o.IdleMiB, ka.HWMSyncMiB-ka.IdleMiB), Target: math.NaN()},
		{What: "ours peak RSS over its idle peak / client-go-watchlist's", Value: driver.Ratio(o.HWMSyncMiB-o.IdleMiB, cg.HWMSyncMiB-cg.IdleMiB), Target: math.NaN()},
		{What: "ours peak RssAnon / keep-all", Value: driver.Ratio(o.AnonMiB, ka.AnonMiB), Target: math.NaN()},
		{What: "ours peak RssAnon / client-go-watchlist", Value: driver.Ratio(o.AnonMiB, cg.AnonMiB), Target: math.NaN()},
		{Key: "idle_rss_ours", What: "ours idle peak RSS (its program on an empty namespace)", Value: o.IdleMiB, Target: math.NaN(), MiB: true},
		{Key: "idle_rss_clientgo", What: "client-go-watchlist idle peak RSS", Value: cg.IdleMiB, Target: math.NaN(), MiB: true},
		{Key: "idle_rss_floor", What: "keep-all idle peak RSS (the floors' program)", Value: ka.IdleMiB, Target: math.NaN(), MiB: true},
	}
}

// machineKeys are the keys of the machine-readable line, in the issues' order.
var machineKeys = []string{"time_vs_floor", "rss_vs_keepall", "rss_vs_clientgo", "time_vs_clientgo", "rss_strip_vs_keepall", "cpu_per_event_vs_clientgo",
	"slow_lag_p50_vs_fast", "slow_restarts", "slow_rss_vs_clientgo",
	"server_rss_vs_clientgo_list", "server_cpu_vs_clientgo_watchlist", "crd_time_vs_clientgo", "crd_rss_vs_clientgo",
	"warm_time_vs_cold", "warm_bytes_vs_cold", "cpu_per_event_vs_floor",
	"shard_time_vs_unsharded", "shard_rss_vs_unsharded", "shard_server_cpu_vs_unsharded", "cr_time_vs_cache", "cr_rss_vs_cache", "cold_server_cpu_vs_clientgo_best", "wave_warm_cpu_vs_clientgo", "wave_warm_cpu_vs_clientgo_list", "apiserver_restart_cpu_vs_clientgo", "takeover_s",
	"proj_time_vs_floor_read", "proj_rss_vs_clientgo_strip", "proj_cpu_per_event_vs_floor_decode", "proj_crd_time_vs_full", "proj_crd_rss_vs_full",
	"idle_rss_ours", "idle_rss_clientgo", "idle_rss_floor", "idle_rss_cr_cache", "idle_rss_cr_syncer", "agent_idle_rss", "agent_rss",
	"ryow_dups", "ryow_reconcile_time_vs_off", "ryow_wait_p99_vs_cache", "ryow_cache_reconcile_time_vs_off",
	"shadow_read_p99_vs_cache", "shadow_reconcile_time_vs_cache", "shadow_differences",
	"meta_time_vs_best_peer", "meta_rss_vs_best_peer", "meta_server_cpu_vs_best_peer", "meta_bytes_vs_full",
	"unstructured_time_vs_dynamic", "unstructured_rss_vs_dynamic", "idle_rss_dynamic",
	"lag_probe_server_cores_100", "lag_probe_requests_per_s_100", "bounded_read_p99_s",
	"warm_time_vs_floor", "event_cpu_slope_vs_floor_decode", "proj_event_cpu_slope_vs_floor_decode",
	"idle_cpu_vs_floor", "idle_cpu_vs_clientgo", "idle_cpu_vs_cr_cache", "agent_idle_cpu_vs_floor", "agent_idle_cpu_vs_clientgo",
	"named_bytes_vs_full", "named_rss_vs_idle_plus_decoded", "named_p99_vs_full", "named_list_bytes_vs_watchlist",
	"named_1000_bytes_vs_full", "named_1000_p99_vs_full", "named_server_event_cpu_20_vs_type", "named_server_event_cpu_1000_vs_type",
	"named_server_goroutines_1000", "named_metagets_bytes_vs_names", "named_metagets_1000_bytes_vs_names"}

// outcome is what the parts of the benchmark measured; empty for a part
// that did not run.
type outcome struct {
	main     []driver.Result // the contenders, one at a time
	names    []string        // the contenders, in the order asked
	server   []serverRun
	clients  int
	crd      []driver.Result
	warm     []driver.Result
	shards   []shardRun
	waves    []serverRun // the node-agent wave
	fleet    []fleetRun
	restarts []restartRun
	// projection is the projection part's; empty when it did not run.
	projection projectionOutcome
	// metadata is the metadata part's; empty when it did not run.
	metadata metadataOutcome
	// consistency is the consistency part's runs.
	consistency []childload.Outcome
	// lag is the lag part's runs.
	lag []lagRun
	// named is the named part's; empty when it did not run.
	named  namedOutcome
	agents int
	pods   int
}

// report prints the tables and ends with the machine-readable line.
func report(w io.Writer, setup string, out outcome) {
	ss := driver.Summarize(out.main, out.names)
	cs := append(comparisons(ss), hotPathComparisons(ss)...)
	fmt.Fprintf(w, "\n%s\n", setup)
	if len(out.main) > 0 {
		fmt.Fprintf(w, "\nMedians over the rounds:\n\n%s\n", driver.MedianTable(ss))
		for _, name := range out.names {
			if c, ok := contenderByName(name); ok {
				fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
			}
		}
		fmt.Fprintln(w)
		for _, s := range ss {
			if s.Notes != "" {
				fmt.Fprintf(w, "%s: %s\n", s.Contender, s.Notes)
			}
		}
		reportHotPath(w, ss)
		fmt.Fprintf(w, "\nRatios (lower is better for ours):\n\n%s\n", driver.ComparisonTable(cs))
	}
	scs := slowComparisons(ss)
	reportSlow(w, ss, scs)
	svcs := serverComparisons(out.server)
	reportServerCost(w, out.server, out.clients, svcs)
	css := driver.Summarize(out.crd, namesOf(crdContenders))
	ccs := crdComparisons(css)
	reportCRD(w, out.crd, css, ccs)
	wss := driver.Summarize(out.warm, namesOf(warmContenders))
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
	pss := driver.Summarize(out.projection.pods, namesOf(projContenders))
	prs := driver.Summarize(out.projection.crs, namesOf(projCRDContenders))
	pcs := slices.Concat(projectionComparisons(pss, prs), agentComparisons(out.projection.agents),
		agentIdleComparisons(out.projection.agents, out.projection.agentPeers))
	reportProjection(w, out.projection, pss, prs, pcs)
	mss := driver.Summarize(out.metadata.meta, namesOf(metaContenders))
	uss := driver.Summarize(out.metadata.unstructured, namesOf(unstructuredContenders))
	mcs := metadataComparisons(mss, uss)
	reportMetadata(w, out.metadata, mss, uss, mcs)
	rycs := consistencyComparisons(out.consistency)
	reportConsistency(w, out.consistency, rycs)
	lgcs := lagComparisons(out.lag)
	reportLag(w, out.lag, lgcs)
	nss := driver.Summarize(out.named.runs, namesOf(namedContenders()))
	ncs := namedComparisons(nss, out.named.runs)
	reportNamed(w, out.named, nss, ncs)
	fmt.Fprintln(w, driver.MachineLine(slices.Concat(cs, scs, svcs, ccs, wcs, shcs, wvcs, rcs, fcs, pcs, rycs, mcs, lgcs, ncs), machineKeys))
}
