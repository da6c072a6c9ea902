package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The restart part: the wave's agents, synced and running, meet a
// kube-apiserver restarted under them (a control-plane upgrade). A write
// just before the restart moves etcd's revision past what their watches
// have seen, so that the restarted server's watch cache no longer has it:
// every watch gets 410 Gone. client-go's reflector lists again; ours
// resyncs warm from its store. kube-apiserver is measured for
// restartWindow from its readiness, against a restart with no agent (its
// own start-up: the baseline taken off every row).

// restartRows are the agents' contenders; restartIdle is the baseline.
var restartRows = []string{ours, clientGoWatch, clientGoWatchNoGzip, clientGoList, clientGoListNoGzip}

const (
	restartIdle   = "no agents"
	restartWindow = 20 * time.Second
)

// restartRun is one round of one row.
type restartRun struct {
	contender string
	cpu       time.Duration // kube-apiserver's CPU over the window
	allocated float64       // the bytes it allocated meanwhile
	kinds     map[string]int
}

func (b *bench) restartRounds(ctx context.Context) ([]restartRun, error) {
	o := b.waveOptions()
	var runs []restartRun
	for round := 1; round <= b.o.rounds; round++ {
		for _, name := range append([]string{restartIdle}, roundOrder(restartRows, round)...) {
			if err := b.srv.Relaunch(); err != nil {
				return nil, err
			}
			if b.servers, b.apiserver = driver.ServerPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
				return nil, fmt.Errorf("restart: found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
			}
			if err := b.quiesce(ctx, "restart "+name); err != nil {
				return nil, err
			}
			var r restartRun
			var err error
			if name == restartIdle {
				r, err = b.restartUnder(ctx, nil, name, round)
			} else {
				_, _, err = b.wave(ctx, serverContender(name), b.o.agents, o, func(i int) []string {
					return []string{fmt.Sprintf("-tag=restart.%s.r%d.%s", name, round, nodeName(i)),
						"-field-selector=spec.nodeName=" + nodeName(i), fmt.Sprintf("-want=%d", podsOf(i, b.o.n, b.o.agents))}
				}, round, func(chs []*driver.Child) error {
					r, err = b.restartUnder(ctx, chs, name, round)
					return err
				})
			}
			if err != nil {
				return nil, fmt.Errorf("restart, round %d, %s: %w", round, name, err)
			}
			fmt.Fprintf(os.Stderr, "restart round %d/%d %-20s kube-apiserver CPU %.2fs, allocated %.0f MiB over %s; agents' requests after it: %s\n",
				round, b.o.rounds, name, r.cpu.Seconds(), r.allocated/driver.MiB, restartWindow, kindsText(r.kinds))
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// restartUnder restarts kube-apiserver under the running agents chs and
// measures it for restartWindow from its readiness. Every agent must have
// resynced: sent a request other than a watch (a LIST, a WatchList or a
// metadata-only LIST).
func (b *bench) restartUnder(ctx context.Context, chs []*driver.Child, name string, round int) (restartRun, error) {
	r := restartRun{contender: name, kinds: map[string]int{}}
	for _, ch := range chs {
		if err := ch.Send(driver.CmdProbe); err != nil {
			return r, err
		}
		if err := ch.Expect(ctx, driver.MsgReady, &struct{}{}, replyTimeout); err != nil {
			return r, err
		}
	}
	marker := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("restart-%s-r%d", strings.ReplaceAll(name, " ", "-"), round)}}
	// In the wave's namespace, whose ConfigMaps no other part counts.
	if _, err := b.cs.CoreV1().ConfigMaps(waveNamespace).Create(ctx, marker, metav1.CreateOptions{}); err != nil {
		return r, fmt.Errorf("the write before the restart: %w", err)
	}
	if err := b.srv.Relaunch(); err != nil {
		return r, err
	}
	if b.servers, b.apiserver = driver.ServerPIDs(); len(b.servers) != 2 || b.apiserver == 0 {
		return r, fmt.Errorf("found %d of the test bed's processes after restarting kube-apiserver", len(b.servers))
	}
	cpu0 := driver.CPUOf([]int{b.apiserver})
	alloc0, err := b.apiserverAllocated(ctx)
	if err != nil {
		return r, err
	}
	select { // a measurement window, not a wait for anything
	case <-time.After(restartWindow):
	case <-ctx.Done():
		return r, ctx.Err()
	}
	r.cpu = driver.CPUOf([]int{b.apiserver}) - cpu0
	alloc1, err := b.apiserverAllocated(ctx)
	if err != nil {
		return r, err
	}
	r.allocated = alloc1 - alloc0
	for i, ch := range chs {
		var rep driver.RequestsReport
		if err := ch.Send(driver.CmdRequests); err != nil {
			return r, err
		}
		if err := ch.Expect(ctx, driver.MsgRequests, &rep, replyTimeout); err != nil {
			return r, err
		}
		resynced := false
		for k, v := range rep.Kinds {
			r.kinds[k] += v
			resynced = resynced || k != "watch"
		}
		if !resynced {
			return r, fmt.Errorf("agent of %s did not resync within %s of the restart (requests: %s)", nodeName(i), restartWindow, kindsText(rep.Kinds))
		}
	}
	return r, nil
}

func kindsText(kinds map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, kinds[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// restartSummary holds the medians of one row's rounds, the baseline's
// taken off.
type restartSummary struct {
	contender      string
	runs           int
	cpu, allocated float64 // over the baseline: s, MiB
	kinds          map[string]int
}

func summarizeRestart(runs []restartRun, name string) restartSummary {
	med := func(n string) (cpu, alloc float64, count int, kinds map[string]int) {
		var cs, as []float64
		for _, r := range runs {
			if r.contender == n {
				cs, as, kinds = append(cs, r.cpu.Seconds()), append(as, r.allocated/driver.MiB), r.kinds
			}
		}
		return driver.Median(cs), driver.Median(as), len(cs), kinds
	}
	idleCPU, idleAlloc, _, _ := med(restartIdle)
	s := restartSummary{contender: name}
	var cpu, alloc float64
	cpu, alloc, s.runs, s.kinds = med(name)
	if name != restartIdle { // within the noise of the start-up: nothing
		cpu, alloc = max(0, cpu-idleCPU), max(0, alloc-idleAlloc)
	}
	s.cpu, s.allocated = cpu, alloc
	return s
}

func restartTable(runs []restartRun, agents int) *driver.Table {
	t := &driver.Table{Header: []string{"contender", "agents", "runs", "apiserver CPU s over its own start-up", "allocated MiB over its own start-up", "agents' requests after the restart (last round)"}}
	for _, name := range append([]string{restartIdle}, restartRows...) {
		if s := summarizeRestart(runs, name); s.runs > 0 {
			n := agents
			if name == restartIdle {
				n = 0
			}
			t.Add(name, fmt.Sprint(n), fmt.Sprint(s.runs), driver.Num(s.cpu, 2), driver.Num(s.allocated, 0), kindsText(s.kinds))
		}
	}
	return t
}

// restartComparisons: the target, ours' resync after a
// kube-apiserver restart against client-go's relist.
func restartComparisons(runs []restartRun) []driver.Comparison {
	o, w, l := summarizeRestart(runs, ours), summarizeRestart(runs, clientGoWatch), summarizeRestart(runs, clientGoList)
	return []driver.Comparison{
		{Key: "apiserver_restart_cpu_vs_clientgo", What: "kube-apiserver restarted under the agents: ours apiserver CPU / client-go-watchlist", Value: driver.Ratio(o.cpu, w.cpu), Target: 0.3},
		{What: "kube-apiserver restarted under the agents: ours apiserver CPU / client-go-list", Value: driver.Ratio(o.cpu, l.cpu), Target: math.NaN()},
		{What: "kube-apiserver restarted under the agents: ours allocated / client-go-watchlist", Value: driver.Ratio(o.allocated, w.allocated), Target: math.NaN()},
		{What: "kube-apiserver restarted under the agents: ours apiserver CPU / client-go-watchlist-nogzip",
			Value: driver.Ratio(o.cpu, summarizeRestart(runs, clientGoWatchNoGzip).cpu), Target: math.NaN()},
	}
}

// reportRestart prints the restart part, when it ran.
func reportRestart(w io.Writer, runs []restartRun, agents, pods int, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nkube-apiserver restarted under %d running agents (the wave's: each its node's pods of %d), after a write that moves etcd's revision past their watches; "+
		"its CPU and allocated bytes over %s from its readiness, less those of a restart with no agent (its own start-up); medians over the rounds:\n\n%s\n",
		agents, pods, restartWindow, restartTable(runs, agents))
	fmt.Fprintf(w, "Restart ratios:\n\n%s\n", driver.ComparisonTable(cs))
}
