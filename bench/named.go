package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The named part (issue 45): a program that reads a few Secrets by name,
// among -named-n Secrets of -named-size bytes in a namespace of their own
// (created once, kept for every round). Our syncer over namedFew and
// namedMany names (runtime.WithNames: a LIST and WATCH of each name), over
// namedFew names without WatchList, and the two ways of a program that may
// list the type: controller-runtime's cache Getting the names (an informer
// of every Secret) and a metadata syncer of every Secret plus a GET of
// each named one whole; against our full syncer of the namespace. Each
// reports the bytes it read up to synced, its peak RSS over its idle peak
// (its program over the same names in an empty namespace), the lag from a
// write of a named Secret to its handler in a steady state of namedRate
// updates a second over the first namedFew names, and what kube-apiserver
// paid: its CPU to sync, its CPU over the steady state, its goroutines and
// RSS once the contender synced.

const (
	partNamed      = "named"
	namedNamespace = "bench-named"
	namedFew       = 20
	namedMany      = 1000
	// namedRate is the steady state's updates a second, over the first
	// namedFew Secrets: a modest rate, as Secrets change.
	namedRate = 50
)

// namedName names a contender of the named part over n names.
func namedName(base string, n int) string { return base + "-" + strconv.Itoa(n) }

var (
	oursNamedFew     = namedName(child.OursNamed, namedFew)
	oursNamedMany    = namedName(child.OursNamed, namedMany)
	oursNamedListFew = namedName(child.OursNamedList, namedFew)
	crCacheNamedFew  = namedName(child.CRCacheNamed, namedFew)
	metadataGetsFew  = namedName(child.OursMetadataGets, namedFew)
	metadataGetsMany = namedName(child.OursMetadataGets, namedMany)
)

// namedContender is a contender over n names (-names).
func namedContender(base string, n int, what string) driver.Contender {
	return driver.Contender{Name: namedName(base, n), Steady: true, Args: []string{"-names=" + strconv.Itoa(n)}, What: what}
}

// namedGroups are the part's contenders by the number of objects each
// reports at sync: the names (namedFew, namedMany) or every Secret (0: -named-n).
var namedGroups = []struct {
	want int
	cs   []driver.Contender
}{
	{namedFew, []driver.Contender{
		namedContender(child.OursNamed, namedFew, "our syncer over 20 names (runtime.WithNames: a WatchList of each name, fieldSelector=metadata.name), default options"),
		namedContender(child.OursNamedList, namedFew, "the same with runtime.WithoutWatchList(): a LIST and a WATCH of each name"),
		namedContender(child.CRCacheNamed, namedFew, "a controller-runtime Manager's Client Getting the 20 names: its cache starts an informer of every Secret of the namespace (WatchListClient off, JSON, as its users run it)"),
		namedContender(child.OursMetadataGets, namedFew, "our metadata syncer of every Secret (dynamicsyncer.NewMetadata) plus a GET of each named Secret once synced, and again when its resourceVersion changes"),
	}},
	{namedMany, []driver.Contender{
		namedContender(child.OursNamed, namedMany, "our syncer over 1,000 names, default options"),
		namedContender(child.OursMetadataGets, namedMany, "the metadata syncer plus GETs, over 1,000 names"),
	}},
	{0, []driver.Contender{{Name: ours, Steady: true,
		What: "our syncer of every Secret of the namespace (runtime.New over *corev1.Secret, one WatchList of the type), default options"}}},
}

// namedContenders are every contender of the part, in the tables' order.
func namedContenders() []driver.Contender {
	var out []driver.Contender
	for _, g := range namedGroups {
		out = append(out, g.cs...)
	}
	return out
}

// namedOutcome is what the part measured.
type namedOutcome struct {
	runs    []driver.Result
	n, size int
}

// namedRounds creates the part's Secrets and runs its contenders, a group
// at a time (each group's rounds interleaved): the steady state writes
// namedRate updates a second over the first namedFew Secrets for every
// contender.
func (b *bench) namedRounds(ctx context.Context) (namedOutcome, error) {
	out := namedOutcome{n: b.o.namedN, size: b.o.namedSize}
	nb := *b
	nb.o.resource, nb.o.namespace, nb.o.n, nb.o.size, nb.res = child.Secrets, namedNamespace, b.o.namedN, b.o.namedSize, resources[child.Secrets]
	nb.o.rate, nb.o.steadyPool = namedRate, namedFew
	nb.measureServer = true
	if err := populate(ctx, nb.cs, nb.cs.CoreV1().RESTClient(), nb.o, nb.res); err != nil {
		return out, err
	}
	for _, g := range namedGroups {
		gb := nb
		if g.want > 0 {
			gb.o.n = min(g.want, nb.o.n)
		}
		rs, err := gb.runRounds(ctx, "named ", g.cs)
		out.runs = append(out.runs, rs...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// namedServer holds the medians of what kube-apiserver paid for one
// contender beyond driver.Summary's: its CPU seconds per 1,000 updates of
// the steady state (milliseconds per update: the write's own cost included), the goroutines the contender's requests hold, its RSS.
type namedServer struct {
	cpuPer1k, goroutines, rssMiB float64
}

func summarizeNamedServer(rs []driver.Result, name string) namedServer {
	var cpu, g, rss []float64
	for _, r := range rs {
		if r.Contender != name || r.Idle || r.Server == nil {
			continue
		}
		g = append(g, r.Server.Goroutines)
		rss = append(rss, float64(r.Server.RSSBytes)/driver.MiB)
		if r.Steady != nil && r.Steady.Events > 0 {
			cpu = append(cpu, r.Server.SteadyCPU.Seconds()/float64(r.Steady.Events)*1000)
		}
	}
	return namedServer{cpuPer1k: driver.Median(cpu), goroutines: driver.Median(g), rssMiB: driver.Median(rss)}
}

// overIdle is a contender's peak RSS at sync over its idle peak.
func overIdle(s driver.Summary) float64 { return s.HWMSyncMiB - s.IdleMiB }

// namedComparisons computes the part's ratios; the targets, over
// 20 names: bytes read at most 0.01x the full syncer's, peak RSS at most
// the idle peak plus 1.5x the named objects' decoded size (Store.Bytes),
// lag p99 at most 1.1x the full syncer's.
func namedComparisons(ss []driver.Summary, rs []driver.Result) []driver.Comparison {
	f, m, l := driver.Find(ss, oursNamedFew), driver.Find(ss, oursNamedMany), driver.Find(ss, oursNamedListFew)
	cr, g, gm, full := driver.Find(ss, crCacheNamedFew), driver.Find(ss, metadataGetsFew), driver.Find(ss, metadataGetsMany), driver.Find(ss, ours)
	sf, sm, sfull := summarizeNamedServer(rs, oursNamedFew), summarizeNamedServer(rs, oursNamedMany), summarizeNamedServer(rs, ours)
	sg, sgm := summarizeNamedServer(rs, metadataGetsFew), summarizeNamedServer(rs, metadataGetsMany)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "named_bytes_vs_full", What: "named: ours-named-20 bytes read to synced / ours (the full syncer)", Value: driver.Ratio(f.ReadMiB, full.ReadMiB), Target: 0.01},
		{Key: "named_rss_vs_idle_plus_decoded", What: "named: ours-named-20 (peak RSS at sync - its idle peak) / the named Secrets' decoded size (its Store.Bytes)", Value: driver.Ratio(overIdle(f), f.StoreMiB), Target: 1.5},
		{Key: "named_p99_vs_full", What: "named: ours-named-20 lag p99 of a write to a named Secret / ours (the full syncer)", Value: driver.Ratio(f.LagP99ms, full.LagP99ms), Target: 1.1},
		{Key: "named_list_bytes_vs_watchlist", What: "named: ours-named-list-20 bytes read / ours-named-20 (WithoutWatchList against the default)", Value: driver.Ratio(l.ReadMiB, f.ReadMiB), Target: nan},
		{What: "named: ours-named-20 time to synced / ours (the full syncer)", Value: driver.Ratio(f.SyncSeconds, full.SyncSeconds), Target: nan},
		{What: "named: ours-named-20 peak RSS at sync / cr-cache-named-20", Value: driver.Ratio(f.HWMSyncMiB, cr.HWMSyncMiB), Target: nan},
		{What: "named: ours-named-20 bytes read / cr-cache-named-20", Value: driver.Ratio(f.ReadMiB, cr.ReadMiB), Target: nan},
		{What: "named: ours-named-20 lag p99 / cr-cache-named-20", Value: driver.Ratio(f.LagP99ms, cr.LagP99ms), Target: nan},
		{Key: "named_1000_bytes_vs_full", What: "named: ours-named-1000 bytes read / ours (the full syncer)", Value: driver.Ratio(m.ReadMiB, full.ReadMiB), Target: nan},
		{What: "named: ours-named-1000 (peak RSS at sync - its idle peak) / its Store.Bytes", Value: driver.Ratio(overIdle(m), m.StoreMiB), Target: nan},
		{Key: "named_1000_p99_vs_full", What: "named: ours-named-1000 lag p99 / ours (the full syncer)", Value: driver.Ratio(m.LagP99ms, full.LagP99ms), Target: nan},
		{What: "named: ours-named-1000 time to synced / ours (the full syncer)", Value: driver.Ratio(m.SyncSeconds, full.SyncSeconds), Target: nan},
		{Key: "named_server_event_cpu_20_vs_type", What: "named: kube-apiserver CPU per update in the steady state, 20 name watches / one watch of the type (ours)", Value: driver.Ratio(sf.cpuPer1k, sfull.cpuPer1k), Target: nan},
		{Key: "named_server_event_cpu_1000_vs_type", What: "named: the same, 1,000 name watches / one watch of the type", Value: driver.Ratio(sm.cpuPer1k, sfull.cpuPer1k), Target: nan},
		{What: "named: kube-apiserver CPU to sync, 20 names / the full syncer", Value: driver.Ratio(f.ServerCPU, full.ServerCPU), Target: nan},
		{What: "named: kube-apiserver CPU to sync, 1,000 names / the full syncer", Value: driver.Ratio(m.ServerCPU, full.ServerCPU), Target: nan},
		{Key: "named_server_goroutines_1000", What: "named: kube-apiserver goroutines that 1,000 name watches hold", Value: sm.goroutines, Target: nan, Count: true},
		{Key: "named_metagets_bytes_vs_names", What: "named: ours-metadata-gets-20 bytes read / ours-named-20", Value: driver.Ratio(g.ReadMiB, f.ReadMiB), Target: nan},
		{What: "named: ours-metadata-gets-20 peak RSS over idle / ours-named-20's", Value: driver.Ratio(overIdle(g), overIdle(f)), Target: nan},
		{What: "named: ours-metadata-gets-20 lag p99 / ours-named-20", Value: driver.Ratio(g.LagP99ms, f.LagP99ms), Target: nan},
		{What: "named: ours-metadata-gets-20 kube-apiserver CPU to sync / ours-named-20's", Value: driver.Ratio(g.ServerCPU, f.ServerCPU), Target: nan},
		{What: "named: ours-metadata-gets-20 kube-apiserver CPU per update / ours-named-20's", Value: driver.Ratio(sg.cpuPer1k, sf.cpuPer1k), Target: nan},
		{Key: "named_metagets_1000_bytes_vs_names", What: "named: ours-metadata-gets-1000 bytes read / ours-named-1000", Value: driver.Ratio(gm.ReadMiB, m.ReadMiB), Target: nan},
		{What: "named: ours-metadata-gets-1000 peak RSS over idle / ours-named-1000's", Value: driver.Ratio(overIdle(gm), overIdle(m)), Target: nan},
		{What: "named: ours-metadata-gets-1000 lag p99 / ours-named-1000", Value: driver.Ratio(gm.LagP99ms, m.LagP99ms), Target: nan},
		{What: "named: ours-metadata-gets-1000 kube-apiserver CPU to sync / ours-named-1000's", Value: driver.Ratio(gm.ServerCPU, m.ServerCPU), Target: nan},
		{What: "named: ours-metadata-gets-1000 kube-apiserver CPU per update / ours-named-1000's", Value: driver.Ratio(sgm.cpuPer1k, sm.cpuPer1k), Target: nan},
	}
}

// namedTable is a table of the part's medians.
func namedTable(ss []driver.Summary, rs []driver.Result) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "runs", "objects", "time to synced s", "MiB read from the server",
		"idle peak RSS MiB", "peak RSS at sync MiB", "store MiB (Store.Bytes)", "lag p50 ms", "lag p99 ms",
		"apiserver CPU to sync s", "apiserver CPU ms / update", "apiserver goroutines held", "apiserver RSS MiB"}}
	for _, s := range ss {
		if s.Runs == 0 {
			continue
		}
		sv := summarizeNamedServer(rs, s.Contender)
		t.Add(s.Contender, fmt.Sprint(s.Runs), driver.Num(s.Objects, 0), driver.Num(s.SyncSeconds, 3), driver.Num(s.ReadMiB, 2),
			driver.Num(s.IdleMiB, 1), driver.Num(s.HWMSyncMiB, 1), driver.Num(s.StoreMiB, 2), driver.Num(s.LagP50ms, 1), driver.Num(s.LagP99ms, 1),
			driver.Num(s.ServerCPU, 3), driver.Num(sv.cpuPer1k, 2), driver.Num(sv.goroutines, 0), driver.Num(sv.rssMiB, 0))
	}
	return t
}

// reportNamed prints the part, when it ran.
func reportNamed(w io.Writer, n namedOutcome, ss []driver.Summary, cs []driver.Comparison) {
	if len(n.runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nNamed: %d Secrets of %d B of data in namespace %s; a steady state of %d updates/s over the first %d, the same for every contender; "+
		"bytes read are counted at the child's sockets up to synced; kube-apiserver's CPU to sync (schedstat) from the child's start of work to synced, "+
		"per 1,000 updates over the steady state, its goroutines held (go_goroutines at synced less at start) and its RSS at synced; medians over the rounds:\n\n%s\n",
		n.n, n.size, namedNamespace, namedRate, namedFew, namedTable(ss, n.runs))
	for _, c := range namedContenders() {
		fmt.Fprintf(w, "- %s: %s\n", c.Name, c.What)
	}
	fmt.Fprintln(w)
	for _, s := range ss {
		if s.Notes != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Contender, s.Notes)
		}
	}
	fmt.Fprintf(w, "\nNamed ratios:\n\n%s\n", driver.ComparisonTable(cs))
}

// namedChart: what each contender read, held over its idle peak, its lag
// and what kube-apiserver paid, against the full syncer.
func namedChart(run []string, ss []driver.Summary) *driver.Chart {
	return &driver.Chart{Title: "Named Secrets: medians over the rounds (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("read from the server, MiB", 2, ss, func(s driver.Summary) float64 { return s.ReadMiB }, ours),
		driver.PanelOf("peak RSS at sync over the idle peak, MiB", 1, ss, overIdle, ours),
		driver.PanelOf("lag p99 of a write to a named Secret, ms", 1, ss, func(s driver.Summary) float64 { return s.LagP99ms }, ours),
		driver.PanelOf("apiserver CPU to sync, s", 3, ss, func(s driver.Summary) float64 { return s.ServerCPU }, ours),
	}}
}
