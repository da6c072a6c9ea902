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

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The server-cost part: -clients children of one contender, each its own
// process and so its own connection, start at once against the populated
// server, restarted for each row; the benchmark measures what
// kube-apiserver pays for them. The ours-warm row restarts ours' clients
// from a snapshot saved against that same kube-apiserver, after the churn
// (see warm.go): the clients restart, the server does not, as when a
// DaemonSet of agents is rolled.

var serverContenders = []driver.Contender{
	{Name: oursCompressed, What: "ours with runtime.WithCompression(): WatchList responses gzipped (1.37 and later)"},
	{Name: oursList, What: "ours with runtime.WithoutWatchList(): paginated LIST + WATCH"},
	{Name: oursWatchList, What: "ours with runtime.WithWatchList(): WatchList even with a field selector"},
}

// serverRows are the contenders of the server-cost table run in turn.
var serverRows = []string{ours, oursCompressed, oursList, oursWarm, clientGoWatch, clientGoWatchNoGzip, clientGoList, clientGoListNoGzip}

// serverContender is the contender of a server-cost row.
func serverContender(name string) driver.Contender {
	if c, ok := contenderByName(name); ok {
		return c
	}
	for _, c := range slices.Concat(serverContenders, warmContenders, waveContenders) {
		if c.Name == name {
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
	row := func(c driver.Contender, round int) error {
		// A fresh kube-apiserver for each row: one that served earlier
		// rows keeps their garbage resident, and a row that fits in it
		// would not raise the peak.
		if err := b.srv.Relaunch(); err != nil {
			return err
		}
		if b.servers, b.apiserver = driver.ServerPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
			return fmt.Errorf("server cost: found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
		}
		if c.Name == oursWarm {
			if err := b.seedSnapshots(ctx, round); err != nil {
				return err
			}
		}
		if err := b.quiesce(ctx, c.Name); err != nil {
			return err
		}
		r, err := b.serverCost(ctx, c, round)
		if err != nil {
			return fmt.Errorf("server cost, round %d, %s: %w", round, c.Name, err)
		}
		fmt.Fprintf(os.Stderr, "server cost round %d/%d %-20s %d clients, slowest synced in %.3fs; kube-apiserver RSS %.1f MiB, peak +%.1f MiB, CPU %.2fs\n",
			round, b.o.rounds, c.Name, b.o.clients, r.slowest, float64(r.idleRSS)/driver.MiB, float64(r.peak-r.idleRSS)/driver.MiB, r.cpu.Seconds())
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
	if _, err := b.runOne(ctx, warmCold, round, "-snapshot="+seed); err != nil {
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
func (b *bench) serverCost(ctx context.Context, c driver.Contender, round int) (serverRun, error) {
	r, reports, err := b.wave(ctx, c, b.o.clients, b.o, func(i int) []string {
		extra := []string{fmt.Sprintf("-tag=server.%s.r%d.c%d", c.Name, round, i)}
		if c.Name == oursWarm {
			extra = append(extra, "-snapshot="+serverSnapshot(b.dir, i))
		}
		return extra
	}, round, nil)
	for _, s := range reports {
		if s.Objects != b.o.n {
			return r, fmt.Errorf("a client saw %d objects, want %d", s.Objects, b.o.n)
		}
		if c.Name == oursWarm && !strings.Contains(s.Note, "mode=warm") {
			return r, fmt.Errorf("a client did not start warm (%s)", s.Note)
		}
	}
	return r, err
}

// wave starts n children of c on the objects o names, child i with the
// flags args(i), lets them start work at once, and measures kube-apiserver
// until the last one synced; then, when not nil, runs then with the
// children still running, and returns the children's sync reports.
func (b *bench) wave(ctx context.Context, c driver.Contender, n int, o options, args func(i int) []string, round int,
	then func([]*driver.Child) error) (serverRun, []driver.SyncReport, error) {
	r := serverRun{contender: c.Name}
	var chs []*driver.Child
	defer func() {
		for _, ch := range chs {
			ch.Kill()
		}
	}()
	for i := range n {
		ch, err := b.startChild(c, o, round, append([]string{"-barrier"}, args(i)...)...)
		if err != nil {
			return r, nil, err
		}
		chs = append(chs, ch)
	}
	for _, ch := range chs {
		if err := ch.Expect(ctx, driver.MsgReady, &struct{}{}, replyTimeout); err != nil {
			return r, nil, err
		}
	}
	// Once reset, VmHWM is the RSS at the reset: the baseline.
	pid := strconv.Itoa(b.apiserver)
	if err := driver.ResetHWM(b.apiserver); err != nil {
		return r, nil, err
	}
	var err error
	if r.idleRSS, err = driver.StatusBytes(pid, "VmHWM"); err != nil {
		return r, nil, err
	}
	alloc0, err := b.apiserverAllocated(ctx)
	if err != nil {
		return r, nil, err
	}
	cpu0 := driver.CPUOf([]int{b.apiserver})
	for _, ch := range chs {
		if err := ch.Send(driver.CmdGo); err != nil {
			return r, nil, err
		}
	}
	var reports []driver.SyncReport
	for _, ch := range chs {
		var s driver.SyncReport
		if err := ch.Expect(ctx, driver.MsgSynced, &s, b.o.timeout+replyTimeout); err != nil {
			return r, nil, err
		}
		r.slowest = max(r.slowest, s.SyncSeconds)
		reports = append(reports, s)
	}
	r.cpu = driver.CPUOf([]int{b.apiserver}) - cpu0
	if r.peak, err = driver.StatusBytes(pid, "VmHWM"); err != nil {
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
		if err := ch.Send(driver.CmdExit); err != nil {
			return r, nil, err
		}
		if err := ch.Expect(ctx, driver.MsgExit, &driver.ExitReport{}, replyTimeout); err != nil {
			return r, nil, err
		}
		if err := ch.Wait(replyTimeout); err != nil {
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
			idle = append(idle, float64(r.idleRSS)/driver.MiB)
			over = append(over, float64(r.peak-r.idleRSS)/driver.MiB)
			cpu = append(cpu, r.cpu.Seconds())
			allocated = append(allocated, r.allocated/driver.MiB)
		}
	}
	s := serverSummary{contender: name, runs: len(slowest), slowest: driver.Median(slowest), idleMiB: driver.Median(idle),
		peakOverMiB: driver.Median(over), cpu: driver.Median(cpu), allocatedMiB: driver.Median(allocated), peakOverMin: math.NaN(), peakOverMax: math.NaN()}
	if len(over) > 0 {
		s.peakOverMin, s.peakOverMax = slices.Min(over), slices.Max(over)
	}
	return s
}

func serverTable(runs []serverRun, clients int) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "clients", "runs", "slowest client's time to synced s",
		"apiserver idle RSS MiB", "apiserver peak RSS over idle MiB", "min-max MiB", "apiserver CPU s", "apiserver allocated MiB"}}
	for _, name := range serverRows {
		if s := summarizeServer(runs, name); s.runs > 0 {
			t.Add(name, fmt.Sprint(clients), fmt.Sprint(s.runs), driver.Num(s.slowest, 3), driver.Num(s.idleMiB, 1), driver.Num(s.peakOverMiB, 1),
				driver.Num(s.peakOverMin, 0)+"-"+driver.Num(s.peakOverMax, 0), driver.Num(s.cpu, 2), driver.Num(s.allocatedMiB, 0))
		}
	}
	return t
}

// serverComparisons computes the server-cost ratios; the targets
// are ours within 1.1x of client-go with WatchList on memory and CPU.
func serverComparisons(runs []serverRun) []driver.Comparison {
	o, w, l := summarizeServer(runs, ours), summarizeServer(runs, clientGoWatch), summarizeServer(runs, clientGoList)
	ow, ou, ol := summarizeServer(runs, oursWarm), summarizeServer(runs, oursCompressed), summarizeServer(runs, oursList)
	wn, ln := summarizeServer(runs, clientGoWatchNoGzip), summarizeServer(runs, clientGoListNoGzip)
	best := w
	if l.cpu < w.cpu {
		best = l
	}
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "server_rss_vs_clientgo_list", What: "ours apiserver peak RSS over idle / client-go-list", Value: driver.Ratio(o.peakOverMiB, l.peakOverMiB), Target: nan},
		{What: "ours apiserver peak RSS over idle / client-go-watchlist", Value: driver.Ratio(o.peakOverMiB, w.peakOverMiB), Target: 1.1},
		{Key: "server_cpu_vs_clientgo_watchlist", What: "ours apiserver CPU / client-go-watchlist", Value: driver.Ratio(o.cpu, w.cpu), Target: 1.1},
		{What: "ours apiserver CPU / client-go-list", Value: driver.Ratio(o.cpu, l.cpu), Target: nan},
		{What: "ours apiserver CPU / client-go-watchlist-nogzip", Value: driver.Ratio(o.cpu, wn.cpu), Target: nan},
		{What: "ours apiserver CPU / client-go-list-nogzip", Value: driver.Ratio(o.cpu, ln.cpu), Target: nan},
		{What: "ours apiserver peak RSS over idle / client-go-watchlist-nogzip", Value: driver.Ratio(o.peakOverMiB, wn.peakOverMiB), Target: nan},
		{Key: "cold_server_cpu_vs_clientgo_best", What: "ours apiserver CPU / client-go's cheaper mode (" + best.contender + ")", Value: driver.Ratio(o.cpu, best.cpu), Target: 1},
		{What: "ours-compressed apiserver CPU / ours", Value: driver.Ratio(ou.cpu, o.cpu), Target: nan},
		{What: "ours-list apiserver CPU / ours", Value: driver.Ratio(ol.cpu, o.cpu), Target: nan},
		{What: "ours-compressed slowest client's time to synced / ours", Value: driver.Ratio(ou.slowest, o.slowest), Target: nan},
		{What: "ours-list slowest client's time to synced / ours", Value: driver.Ratio(ol.slowest, o.slowest), Target: nan},
		{What: "ours slowest client's time to synced / client-go-watchlist", Value: driver.Ratio(o.slowest, w.slowest), Target: nan},
		{What: "ours apiserver allocated / client-go-watchlist", Value: driver.Ratio(o.allocatedMiB, w.allocatedMiB), Target: nan},
		{What: "ours-warm apiserver CPU / ours", Value: driver.Ratio(ow.cpu, o.cpu), Target: 0.25},
		{What: "ours-warm apiserver allocated / ours", Value: driver.Ratio(ow.allocatedMiB, o.allocatedMiB), Target: nan},
		{What: "ours-warm apiserver CPU / client-go-watchlist", Value: driver.Ratio(ow.cpu, w.cpu), Target: 0.25},
		{What: "ours-warm apiserver peak RSS over idle / client-go-watchlist", Value: driver.Ratio(ow.peakOverMiB, w.peakOverMiB), Target: nan},
		{What: "ours-warm slowest client's time to synced / ours", Value: driver.Ratio(ow.slowest, o.slowest), Target: nan},
	}
}

// reportServerCost prints the server-cost part, when it ran.
func reportServerCost(w io.Writer, runs []serverRun, clients int, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nServer cost: %d clients of one contender, each its own process and connection, start at once "+
		"against a kube-apiserver restarted for the row and idle (for ours-warm: after one client of ours saved the snapshot they start from, and the churn); its RSS before they start, its peak RSS (VmHWM, reset through clear_refs) over that until the last one synced, "+
		"its CPU (utime+stime) and the bytes it allocated (go_memstats_alloc_bytes_total) meanwhile; medians over the rounds:\n\n%s\n", clients, serverTable(runs, clients))
	fmt.Fprintf(w, "Server cost ratios:\n\n%s\n", driver.ComparisonTable(cs))
}
