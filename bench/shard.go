package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The shard part: K children of ours start at once, child i syncing shard
// i of K (runtime.WithShard; K = 1 is the unsharded syncer), against a
// kube-apiserver restarted for the row, with ShardedListAndWatch on where
// it has the gate (1.36 and later): what kube-apiserver pays for the K
// shards together, and each shard's time to synced and peak RSS. On a
// machine of a few cores, K shards started at once share its cores, as
// shards on their own nodes would not: shard 0 of K is then run alone too,
// for the time and memory of one shard.

// shardCounts are the rows of the shard table.
var shardCounts = []int{1, 2, 4}

// shardRun is one round of one row.
type shardRun struct {
	serverRun
	k        int
	peakRSS  int64   // the largest shard's peak RSS, started with the others
	allocMiB float64 // the largest shard's allocations
	modes    string  // the shards' modes, e.g. "served"
	alone    float64 // shard 0 of K run alone: time to synced, s
	aloneRSS int64   // and peak RSS
}

// shardGateFrom is the first kube-apiserver with ShardedListAndWatch.
const shardGateFrom = "v1.36.0"

func (b *bench) shardRounds(ctx context.Context) ([]shardRun, error) {
	c, _ := contenderByName(ours)
	var runs []shardRun
	for round := 1; round <= b.o.rounds; round++ {
		for _, k := range shardCounts {
			if err := b.srv.Relaunch(); err != nil {
				return nil, err
			}
			if b.servers, b.apiserver = driver.ServerPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
				return nil, fmt.Errorf("shards: found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
			}
			if err := b.quiesce(ctx, fmt.Sprintf("%d shards", k)); err != nil {
				return nil, err
			}
			r, err := b.shardRow(ctx, c, k, round)
			if err != nil {
				return nil, fmt.Errorf("shards, round %d, %d shards: %w", round, k, err)
			}
			fmt.Fprintf(os.Stderr, "shards round %d/%d K=%d: slowest shard synced in %.3fs, largest peak RSS %.1f MiB, %s; kube-apiserver CPU %.2fs, allocated %.0f MiB\n",
				round, b.o.rounds, k, r.slowest, float64(r.peakRSS)/driver.MiB, r.modes, r.cpu.Seconds(), r.allocated/driver.MiB)
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// shardRow runs k shards at once; together they must hold every object
// once.
func (b *bench) shardRow(ctx context.Context, c driver.Contender, k, round int) (shardRun, error) {
	r := shardRun{k: k}
	var err error
	var reports []driver.SyncReport
	r.serverRun, reports, err = b.wave(ctx, c, k, b.o, func(i int) []string {
		extra := []string{fmt.Sprintf("-tag=shard.k%d.r%d.s%d", k, round, i)}
		if k > 1 {
			extra = append(extra, fmt.Sprintf("-shard=%d/%d", i, k))
		}
		return extra
	}, round, nil)
	if err != nil {
		return r, err
	}
	total := 0
	var modes []string
	for _, s := range reports {
		total += s.Objects
		r.peakRSS = max(r.peakRSS, s.HWMBytes)
		r.allocMiB = max(r.allocMiB, float64(s.TotalAllocBytes)/driver.MiB)
		if _, m, ok := strings.Cut(s.Note, "shard="); ok && !slices.Contains(modes, m) {
			modes = append(modes, m)
		}
	}
	if total != b.o.n {
		return r, fmt.Errorf("the %d shards hold %d objects together, want %d", k, total, b.o.n)
	}
	r.modes = strings.Join(modes, ",")
	if r.modes == "" {
		r.modes = "unsharded"
	}
	r.alone, r.aloneRSS = r.slowest, r.peakRSS
	if k > 1 {
		if err := b.quiesce(ctx, "shard 0 alone"); err != nil {
			return r, err
		}
		_, solo, err := b.wave(ctx, c, 1, b.o, func(int) []string {
			return []string{fmt.Sprintf("-tag=shard.k%d.r%d.alone", k, round), fmt.Sprintf("-shard=0/%d", k)}
		}, round, nil)
		if err != nil {
			return r, fmt.Errorf("shard 0 alone: %w", err)
		}
		r.alone, r.aloneRSS = solo[0].SyncSeconds, solo[0].HWMBytes
	}
	return r, nil
}

// shardSummary holds the medians of one row's rounds.
type shardSummary struct {
	k, runs                         int
	slowest, peakMiB, allocMiB, cpu float64
	serverAllocMiB, alone, aloneMiB float64
	modes                           string
}

func summarizeShards(runs []shardRun, k int) shardSummary {
	s := shardSummary{k: k}
	var slowest, peak, alloc, cpu, salloc, alone, aloneRSS []float64
	for _, r := range runs {
		if r.k != k {
			continue
		}
		s.runs++
		s.modes = r.modes
		slowest = append(slowest, r.slowest)
		peak = append(peak, float64(r.peakRSS)/driver.MiB)
		alloc = append(alloc, r.allocMiB)
		cpu = append(cpu, r.cpu.Seconds())
		salloc = append(salloc, r.allocated/driver.MiB)
		alone = append(alone, r.alone)
		aloneRSS = append(aloneRSS, float64(r.aloneRSS)/driver.MiB)
	}
	s.slowest, s.peakMiB, s.allocMiB, s.cpu, s.serverAllocMiB = driver.Median(slowest), driver.Median(peak), driver.Median(alloc), driver.Median(cpu), driver.Median(salloc)
	s.alone, s.aloneMiB = driver.Median(alone), driver.Median(aloneRSS)
	return s
}

func shardTable(runs []shardRun) *driver.Table {
	t := &driver.Table{Header: []string{"shards K", "runs", "mode", "one shard alone: time to synced s", "peak RSS MiB",
		"K at once: slowest shard s", "largest peak RSS MiB", "largest allocated MiB", "apiserver CPU s (K shards)", "apiserver allocated MiB (K shards)"}}
	for _, k := range shardCounts {
		if s := summarizeShards(runs, k); s.runs > 0 {
			t.Add(fmt.Sprint(k), fmt.Sprint(s.runs), s.modes, driver.Num(s.alone, 3), driver.Num(s.aloneMiB, 1), driver.Num(s.slowest, 3), driver.Num(s.peakMiB, 1),
				driver.Num(s.allocMiB, 0), driver.Num(s.cpu, 2), driver.Num(s.serverAllocMiB, 0))
		}
	}
	return t
}

// shardComparisons: the targets for a shard of 4 against the
// unsharded syncer.
func shardComparisons(runs []shardRun) []driver.Comparison {
	one, four := summarizeShards(runs, 1), summarizeShards(runs, 4)
	return []driver.Comparison{
		{Key: "shard_time_vs_unsharded", What: "a shard of 4 alone: time to synced / unsharded", Value: driver.Ratio(four.alone, one.alone), Target: 0.35},
		{Key: "shard_rss_vs_unsharded", What: "a shard of 4 alone: peak RSS / unsharded", Value: driver.Ratio(four.aloneMiB, one.aloneMiB), Target: 0.35},
		{What: "4 shards at once on this machine: slowest time to synced / unsharded", Value: driver.Ratio(four.slowest, one.slowest), Target: math.NaN()},
		{Key: "shard_server_cpu_vs_unsharded", What: "4 shards together: apiserver CPU / unsharded", Value: driver.Ratio(four.cpu, one.cpu), Target: 1.3},
		{What: "4 shards together: apiserver allocated / unsharded", Value: driver.Ratio(four.serverAllocMiB, one.serverAllocMiB), Target: math.NaN()},
	}
}

// reportShards prints the shard part, when it ran.
func reportShards(w io.Writer, runs []shardRun, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nShards: K children of ours start at once, child i syncing shard i of K (K = 1: unsharded), against a kube-apiserver "+
		"restarted for the row, ShardedListAndWatch on where it has it (mode served; filtered: the server ignored the selector); "+
		"each shard's time to synced and peak RSS, and kube-apiserver's CPU and allocated bytes for the K together; medians over the rounds:\n\n%s\n", shardTable(runs))
	fmt.Fprintf(w, "Shard ratios:\n\n%s\n", driver.ComparisonTable(cs))
}
