package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The server-cost part: -clients children of one contender, each its own
// process and so its own connection, start at once against the populated
// server, restarted for each row; the benchmark measures what
// kube-apiserver pays for them. The ours-warm row restarts ours' clients
// from a snapshot saved against that same kube-apiserver, after the churn
// (see warm.go): the clients restart, the server does not, as when a
// DaemonSet of agents is rolled.

// Two ways of ours that only the server-cost table runs: what the other
// requests cost kube-apiserver against the default.
const (
	oursCompressed = "ours-compressed"
	oursList       = "ours-list"
	oursWatchList  = "ours-watchlist" // the wave's: WatchList despite the field selector
)

var serverContenders = []contender{
	{name: oursCompressed, what: "ours with runtime.WithCompression(): WatchList responses gzipped (1.37 and later)"},
	{name: oursList, what: "ours with runtime.WithoutWatchList(): paginated LIST + WATCH"},
	{name: oursWatchList, what: "ours with runtime.WithWatchList(): WatchList even with a field selector"},
}

// serverRows are the contenders of the server-cost table run in turn.
var serverRows = []string{ours, oursCompressed, oursList, oursWarm, clientGoWatch, clientGoList}

// serverContender is the contender of a server-cost row.
func serverContender(name string) contender {
	if c, ok := contenderByName(name); ok {
		return c
	}
	for _, c := range slices.Concat(serverContenders, warmContenders, waveContenders) {
		if c.name == name {
			return c
		}
	}
	panic("server cost: no contender " + name)
}

// serverRun is one round of one row of the server-cost table.
type serverRun struct {
	contender string
	slowest   float64       // the slowest client's time to synced, s
	idleRSS   int64         // kube-apiserver's RSS before the clients start
	peak      int64         // its VmHWM from then until every client synced
	cpu       time.Duration // its CPU time over the same span
	allocated float64       // the bytes it allocated over the same span
}

// serverCostRounds runs every row of the server-cost table once per round.
func (b *bench) serverCostRounds(ctx context.Context) ([]serverRun, error) {
	if b.apiserver == 0 {
		return nil, fmt.Errorf("server cost: kube-apiserver's process not found")
	}
	var runs []serverRun
	row := func(c contender, round int) error {
		// A fresh kube-apiserver for each row: one that served earlier
		// rows keeps their garbage resident, and a row that fits in it
		// would not raise the peak.
		if err := b.srv.Relaunch(); err != nil {
			return err
		}
		if b.servers, b.apiserver = serverPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
			return fmt.Errorf("server cost: found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
		}
		if c.name == oursWarm {
			if err := b.seedSnapshots(ctx, round); err != nil {
				return err
			}
		}
		if err := b.quiesce(ctx, c.name); err != nil {
			return err
		}
		r, err := b.serverCost(ctx, c, round)
		if err != nil {
			return fmt.Errorf("server cost, round %d, %s: %w", round, c.name, err)
		}
		fmt.Fprintf(os.Stderr, "server cost round %d/%d %-20s %d clients, slowest synced in %.3fs; kube-apiserver RSS %.1f MiB, peak +%.1f MiB, CPU %.2fs\n",
			round, b.o.rounds, c.name, b.o.clients, r.slowest, float64(r.idleRSS)/mib, float64(r.peak-r.idleRSS)/mib, r.cpu.Seconds())
		runs = append(runs, r)
		return nil
	}
	for round := 1; round <= b.o.rounds; round++ {
		for _, name := range roundOrder(serverRows, round) {
			if err := row(serverContender(name), round); err != nil {
				return nil, err
			}
		}
	}
	return runs, nil
}

// seedSnapshots prepares the ours-warm row on a freshly started
// kube-apiserver: one client of ours syncs cold and saves its snapshot,
// which every client of the row gets a copy of (they are the same syncer),
// then 1% of the objects are updated, 1% deleted and 1% created.
func (b *bench) seedSnapshots(ctx context.Context, round int) error {
	seed := filepath.Join(b.dir, "server.seed.snapshot")
	if err := os.Remove(seed); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if _, err := b.runOne(ctx, warmContenders[1], round, "-snapshot="+seed); err != nil {
		return fmt.Errorf("server cost, round %d, saving the snapshot: %w", round, err)
	}
	data, err := os.ReadFile(seed)
	if err != nil {
		return err
	}
	for i := range b.o.clients {
		if err := os.WriteFile(serverSnapshot(b.dir, i), data, 0o600); err != nil {
			return err
		}
	}
	return b.churn(ctx, round)
}

// serverSnapshot is the snapshot file of the ours-warm row's i-th client.
func serverSnapshot(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("server.c%d.snapshot", i))
}

// serverCost starts b.o.clients children of c, lets them start work at
// once, and measures kube-apiserver until the last one synced.
func (b *bench) serverCost(ctx context.Context, c contender, round int) (serverRun, error) {
	r, reports, err := b.wave(ctx, c, b.o.clients, b.o, func(i int) []string {
		extra := []string{fmt.Sprintf("-tag=server.%s.r%d.c%d", c.name, round, i)}
		if c.name == oursWarm {
			extra = append(extra, "-snapshot="+serverSnapshot(b.dir, i))
		}
		return extra
	}, round, nil)
	for _, s := range reports {
		if s.Objects != b.o.n {
			return r, fmt.Errorf("a client saw %d objects, want %d", s.Objects, b.o.n)
		}
		if c.name == oursWarm && !strings.Contains(s.Note, "mode=warm") {
			return r, fmt.Errorf("a client did not start warm (%s)", s.Note)
		}
	}
	return r, err
}

// wave starts n children of c on the objects o names, child i with the
// flags args(i), lets them start work at once, and measures kube-apiserver
// until the last one synced; then, when not nil, runs then with the
// children still running, and returns the children's sync reports.
func (b *bench) wave(ctx context.Context, c contender, n int, o options, args func(i int) []string, round int,
	then func([]*child) error) (serverRun, []syncReport, error) {
	r := serverRun{contender: c.name}
	var chs []*child
	defer func() {
		for _, ch := range chs {
			ch.kill()
		}
	}()
	for i := range n {
		ch, err := startChild(b.exe, c, o, b.kubeconfig, round, append([]string{"-barrier"}, args(i)...)...)
		if err != nil {
			return r, nil, err
		}
		chs = append(chs, ch)
	}
	for _, ch := range chs {
		if err := ch.expect(ctx, msgReady, &struct{}{}, replyTimeout); err != nil {
			return r, nil, err
		}
	}
	// Once reset, VmHWM is the RSS at the reset: the baseline.
	pid := strconv.Itoa(b.apiserver)
	if err := resetHWM(b.apiserver); err != nil {
		return r, nil, err
	}
	var err error
	if r.idleRSS, err = statusBytes(pid, "VmHWM"); err != nil {
		return r, nil, err
	}
	alloc0, err := b.apiserverAllocated(ctx)
	if err != nil {
		return r, nil, err
	}
	cpu0 := cpuOf([]int{b.apiserver})
	for _, ch := range chs {
		if err := ch.send(cmdGo); err != nil {
			return r, nil, err
		}
	}
	var reports []syncReport
	for _, ch := range chs {
		var s syncReport
		if err := ch.expect(ctx, msgSynced, &s, b.o.timeout+replyTimeout); err != nil {
			return r, nil, err
		}
		r.slowest = max(r.slowest, s.SyncSeconds)
		reports = append(reports, s)
	}
	r.cpu = cpuOf([]int{b.apiserver}) - cpu0
	if r.peak, err = statusBytes(pid, "VmHWM"); err != nil {
		return r, nil, err
	}
	alloc1, err := b.apiserverAllocated(ctx)
	if err != nil {
		return r, nil, err
	}
	r.allocated = alloc1 - alloc0
	if then != nil {
		if err := then(chs); err != nil {
			return r, nil, err
		}
	}
	for _, ch := range chs {
		if err := ch.send(cmdExit); err != nil {
			return r, nil, err
		}
		if err := ch.expect(ctx, msgExit, &exitReport{}, replyTimeout); err != nil {
			return r, nil, err
		}
		if err := ch.wait(replyTimeout); err != nil {
			return r, nil, err
		}
	}
	return r, reports, nil
}

// serverSummary holds the medians of one row's rounds; NaN when it did not run.
type serverSummary struct {
	contender                                        string
	runs                                             int
	slowest, idleMiB, peakOverMiB, cpu, allocatedMiB float64
	peakOverMin, peakOverMax                         float64 // the spread of peakOverMiB over the rounds
}

func summarizeServer(runs []serverRun, name string) serverSummary {
	var slowest, idle, over, cpu, allocated []float64
	for _, r := range runs {
		if r.contender == name {
			slowest = append(slowest, r.slowest)
			idle = append(idle, float64(r.idleRSS)/mib)
			over = append(over, float64(r.peak-r.idleRSS)/mib)
			cpu = append(cpu, r.cpu.Seconds())
			allocated = append(allocated, r.allocated/mib)
		}
	}
	s := serverSummary{contender: name, runs: len(slowest), slowest: median(slowest), idleMiB: median(idle),
		peakOverMiB: median(over), cpu: median(cpu), allocatedMiB: median(allocated), peakOverMin: math.NaN(), peakOverMax: math.NaN()}
	if len(over) > 0 {
		s.peakOverMin, s.peakOverMax = slices.Min(over), slices.Max(over)
	}
	return s
}

func serverTable(runs []serverRun, clients int) *table {
	t := &table{header: []string{"contender", "clients", "runs", "slowest client's time to synced s",
		"apiserver idle RSS MiB", "apiserver peak RSS over idle MiB", "min-max MiB", "apiserver CPU s", "apiserver allocated MiB"}}
	for _, name := range serverRows {
		if s := summarizeServer(runs, name); s.runs > 0 {
			t.add(name, fmt.Sprint(clients), fmt.Sprint(s.runs), num(s.slowest, 3), num(s.idleMiB, 1), num(s.peakOverMiB, 1),
				num(s.peakOverMin, 0)+"-"+num(s.peakOverMax, 0), num(s.cpu, 2), num(s.allocatedMiB, 0))
		}
	}
	return t
}

// serverComparisons computes the server-cost ratios; the targets
// are ours within 1.1x of client-go with WatchList on memory and CPU.
func serverComparisons(runs []serverRun) []comparison {
	o, w, l := summarizeServer(runs, ours), summarizeServer(runs, clientGoWatch), summarizeServer(runs, clientGoList)
	ow, ou, ol := summarizeServer(runs, oursWarm), summarizeServer(runs, oursCompressed), summarizeServer(runs, oursList)
	best := w
	if l.cpu < w.cpu {
		best = l
	}
	nan := math.NaN()
	return []comparison{
		{key: "server_rss_vs_clientgo_list", what: "ours apiserver peak RSS over idle / client-go-list", value: ratio(o.peakOverMiB, l.peakOverMiB), target: nan},
		{what: "ours apiserver peak RSS over idle / client-go-watchlist", value: ratio(o.peakOverMiB, w.peakOverMiB), target: 1.1},
		{key: "server_cpu_vs_clientgo_watchlist", what: "ours apiserver CPU / client-go-watchlist", value: ratio(o.cpu, w.cpu), target: 1.1},
		{what: "ours apiserver CPU / client-go-list", value: ratio(o.cpu, l.cpu), target: nan},
		{key: "cold_server_cpu_vs_clientgo_best", what: "ours apiserver CPU / client-go's cheaper mode (" + best.contender + ")", value: ratio(o.cpu, best.cpu), target: 1},
		{what: "ours-compressed apiserver CPU / ours", value: ratio(ou.cpu, o.cpu), target: nan},
		{what: "ours-list apiserver CPU / ours", value: ratio(ol.cpu, o.cpu), target: nan},
		{what: "ours-compressed slowest client's time to synced / ours", value: ratio(ou.slowest, o.slowest), target: nan},
		{what: "ours-list slowest client's time to synced / ours", value: ratio(ol.slowest, o.slowest), target: nan},
		{what: "ours slowest client's time to synced / client-go-watchlist", value: ratio(o.slowest, w.slowest), target: nan},
		{what: "ours apiserver allocated / client-go-watchlist", value: ratio(o.allocatedMiB, w.allocatedMiB), target: nan},
		{what: "ours-warm apiserver CPU / ours", value: ratio(ow.cpu, o.cpu), target: 0.25},
		{what: "ours-warm apiserver allocated / ours", value: ratio(ow.allocatedMiB, o.allocatedMiB), target: nan},
		{what: "ours-warm apiserver CPU / client-go-watchlist", value: ratio(ow.cpu, w.cpu), target: 0.25},
		{what: "ours-warm apiserver peak RSS over idle / client-go-watchlist", value: ratio(ow.peakOverMiB, w.peakOverMiB), target: nan},
		{what: "ours-warm slowest client's time to synced / ours", value: ratio(ow.slowest, o.slowest), target: nan},
	}
}

// reportServerCost prints the server-cost part, when it ran.
func reportServerCost(w io.Writer, runs []serverRun, clients int, cs []comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nServer cost: %d clients of one contender, each its own process and connection, start at once "+
		"against a kube-apiserver restarted for the row and idle (for ours-warm: after one client of ours saved the snapshot they start from, and the churn); its RSS before they start, its peak RSS (VmHWM, reset through clear_refs) over that until the last one synced, "+
		"its CPU (utime+stime) and the bytes it allocated (go_memstats_alloc_bytes_total) meanwhile; medians over the rounds:\n\n%s\n", clients, serverTable(runs, clients))
	fmt.Fprintf(w, "Server cost ratios:\n\n%s\n", comparisonTable(cs))
}
