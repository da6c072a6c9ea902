package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The node agent idle (issue 44): node agents run in thousands, so that
// their idle cost is their cost. The agent (examples/builtin --resource
// nodepods --node) is measured idle once synced on its node's -agent-pods
// pods, as every contender is (bench/idle.go), and so are its peers on the
// same pods, through the same field selector: client-go's informer and
// the floor (floor-decode: the WatchList stream, each object decoded and
// dropped).

// agentPeers are the contenders the node agent's idle cost is compared with.
var agentPeers = []driver.Contender{
	{Name: floorDecode, Quiet: true, What: "the agent's pods' WatchList stream (its field selector), each object decoded and dropped"},
	{Name: clientGoWatch, Quiet: true, Env: []string{watchListGate + "=true"},
		What: "client-go SharedIndexInformer of the agent's pods (its field selector), WatchListClient on, protobuf"},
}

// agentPeerRuns runs the node agent's peers once on its node's pods,
// measured idle.
func (b *bench) agentPeerRuns(ctx context.Context, round int) ([]driver.Result, error) {
	pb := *b
	pb.o.resource, pb.o.namespace, pb.o.n = projPodsName, agentNamespace, b.o.agentPods
	var out []driver.Result
	for _, c := range agentPeers {
		if err := b.quiesce(ctx, "node agent's peer "+c.Name); err != nil {
			return out, err
		}
		r, err := pb.runOne(ctx, c, round, "-field-selector=spec.nodeName="+agentNode)
		if err != nil {
			return out, fmt.Errorf("node agent's peer %s, round %d: %w", c.Name, round, err)
		}
		fmt.Fprintf(os.Stderr, "projection node agent's peer round %d/%d %s\n", round, b.o.rounds, describeResult(r))
		out = append(out, r)
	}
	return out, nil
}

// agentIdle returns the agent's idle CPU ms per second and wake-ups per
// second on its node's pods, medians over its runs; NaN when not measured.
func agentIdle(runs []agentRun) (cpuMs, wakeups float64) {
	var cpu, wake []float64
	for _, r := range runs {
		if q := r.idle; q != nil && q.Seconds > 0 {
			cpu = append(cpu, q.CPUSeconds/q.Seconds*1000)
			wake = append(wake, float64(q.Wakeups)/q.Seconds)
		}
	}
	return driver.Median(cpu), driver.Median(wake)
}

// agentIdleComparisons are the agent's idle keys.
func agentIdleComparisons(runs []agentRun, peers []driver.Result) []driver.Comparison {
	cpu, wake := agentIdle(runs)
	ps := driver.Summarize(peers, namesOf(agentPeers))
	fd, cg := driver.Find(ps, floorDecode), driver.Find(ps, clientGoWatch)
	return []driver.Comparison{
		{Key: "agent_idle_cpu_vs_floor", What: "node agent idle CPU per second, synced on its node's pods, no event / floor-decode's of the same pods",
			Value: idleRatio(cpu, fd.QuietCPUms), Target: 1.2},
		{Key: "agent_idle_cpu_vs_clientgo", What: "node agent idle CPU per second / client-go-watchlist's of the same pods",
			Value: idleRatio(cpu, cg.QuietCPUms), Target: 1, Strict: true},
		{What: "node agent idle wake-ups per second / floor-decode's", Value: idleRatio(wake, fd.QuietWakeups), Target: math.NaN()},
		{What: "node agent idle wake-ups per second / client-go-watchlist's", Value: idleRatio(wake, cg.QuietWakeups), Target: math.NaN()},
	}
}

// reportAgentIdle prints the agent's and its peers' idle costs.
func reportAgentIdle(w io.Writer, runs []agentRun, peers []driver.Result, pods int) {
	cpu, wake := agentIdle(runs)
	if math.IsNaN(cpu) {
		return
	}
	t := &driver.Table{Header: []string{"on the node agent's pods", "idle CPU ms/s", "idle wake-ups/s"}}
	t.Add("node agent (examples/builtin --resource nodepods --node)", driver.Num(cpu, 3), driver.Num(wake, 2))
	for _, s := range driver.Summarize(peers, namesOf(agentPeers)) {
		t.Add(s.Contender, driver.Num(s.QuietCPUms, 3), driver.Num(s.QuietWakeups, 2))
	}
	fmt.Fprintf(w, "\nThe node agent idle, on its node's %d pods, against its peers on the same pods (issue 44); medians over the rounds, "+
		"each synced, then measured from outside its process with no event for -quiet once no thread woke for a second (at most -quiet-settle):\n\n%s",
		pods, t)
}
