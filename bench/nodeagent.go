package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The node agent of the projection part: examples/builtin --resource
// nodepods --node <node>, a program as its users build and run it, on the
// -agent-pods pods of its node (Deployment-shaped, written by three
// managers, in a namespace of their own) and on a node with none (idle):
// what one of the thousands of agents of a large cluster takes, its whole
// peak RSS, and how much of it is not the binary's own pages (RssAnon).
// It runs until interrupted; the parent reads /proc while it runs, once
// it printed its synced line.

const (
	agentNamespace = "bench-agent"
	agentNode      = "bench-agent-node"
	agentNoNode    = "bench-no-node" // no pod is on it
)

// agentRun is one run of the node agent.
type agentRun struct {
	pods     int     // its node's pods
	seconds  float64 // to synced, as the agent printed it
	peak     int64   // VmHWM once synced
	anon     int64   // peak RssAnon up to synced
	fileRSS  int64   // RssFile once synced: the binary's pages (and the shared libraries', none for Go)
	mode     string  // the mode the agent synced in
	nodeName string
	idle     *driver.QuietReport // once synced on its pods, with no event (agentidle.go); nil on the idle node
}

// agentSynced is the agent's synced line.
var agentSynced = regexp.MustCompile(`^synced (\d+) pods in (\d+\.\d+)s mode=(\w+) `)

// agentRounds creates the agent's pods, then runs it idle and on them once
// per round.
func (b *bench) agentRounds(ctx context.Context) ([]agentRun, error) {
	ab := *b
	ab.o.namespace, ab.o.n = agentNamespace, b.o.agentPods
	if err := ab.populateProjectionPods(ctx, agentNode); err != nil {
		return nil, err
	}
	var runs []agentRun
	for round := 1; round <= b.o.rounds; round++ {
		for _, node := range []string{agentNoNode, agentNode} {
			if err := b.quiesce(ctx, "node agent"); err != nil {
				return nil, err
			}
			want := 0
			if node == agentNode {
				want = b.o.agentPods
			}
			r, err := b.runAgent(ctx, node, want)
			if err != nil {
				return nil, fmt.Errorf("node agent, round %d, --node %s: %w", round, node, err)
			}
			fmt.Fprintf(os.Stderr, "projection node agent round %d/%d --node %s: %d pods synced in %.2fs (%s), peak RSS %.1f MiB, RssAnon %.1f MiB, RssFile %.1f MiB\n",
				round, b.o.rounds, node, r.pods, r.seconds, r.mode, float64(r.peak)/driver.MiB, float64(r.anon)/driver.MiB, float64(r.fileRSS)/driver.MiB)
			runs = append(runs, r)
		}
	}
	return runs, nil
}

// runAgent runs examples/builtin as node's agent until it has synced its
// want pods, reads its memory, then interrupts it: it must exit 0.
func (b *bench) runAgent(ctx context.Context, node string, want int) (agentRun, error) {
	r := agentRun{nodeName: node}
	ch, err := driver.StartProcess(b.bins[progBuiltin], driver.Contender{Name: "node agent"},
		[]string{"--kubeconfig", b.kubeconfig, "--resource", "nodepods", "--node", node})
	if err != nil {
		return r, err
	}
	defer ch.Kill()
	anon := driver.SampleAnon(ch.Pid())
	line, err := ch.ExpectLine(ctx, agentSynced, b.o.timeout+replyTimeout)
	r.anon = anon.Stop()
	if err != nil {
		return r, err
	}
	m := agentSynced.FindStringSubmatch(line)
	r.pods, _ = strconv.Atoi(m[1])
	r.seconds, _ = strconv.ParseFloat(m[2], 64)
	r.mode = m[3]
	if r.pods != want {
		return r, fmt.Errorf("synced %d pods, want %d", r.pods, want)
	}
	pid := strconv.Itoa(ch.Pid())
	if r.peak, err = driver.StatusBytes(pid, "VmHWM"); err != nil {
		return r, err
	}
	if r.fileRSS, err = driver.StatusBytes(pid, "RssFile"); err != nil {
		return r, err
	}
	if want > 0 && b.o.quiet > 0 {
		if r.idle, err = b.quiet(ctx, ch.Pid(), b.o.quiet); err != nil {
			return r, err
		}
		fmt.Fprintf(os.Stderr, "projection node agent --node %s: %s\n", node, describeQuiet(r.idle))
	}
	if err := ch.Interrupt(); err != nil {
		return r, err
	}
	return r, ch.Wait(replyTimeout)
}

// agentSummary holds the medians of the agent's runs on one node.
type agentSummary struct {
	label                              string
	runs, pods                         int
	seconds, peakMiB, anonMiB, fileMiB float64
}

func summarizeAgent(runs []agentRun, node string) agentSummary {
	var secs, peak, anon, file []float64
	s := agentSummary{label: agentLabel(node)}
	for _, r := range runs {
		if r.nodeName != node {
			continue
		}
		s.runs++
		s.pods = r.pods
		secs = append(secs, r.seconds)
		peak = append(peak, float64(r.peak)/driver.MiB)
		anon = append(anon, float64(r.anon)/driver.MiB)
		file = append(file, float64(r.fileRSS)/driver.MiB)
	}
	s.seconds, s.peakMiB, s.anonMiB, s.fileMiB = driver.Median(secs), driver.Median(peak), driver.Median(anon), driver.Median(file)
	return s
}

// Label names the agent's bars in the projection's chart.
func (s agentSummary) Label() (string, bool) { return s.label, s.runs > 0 }

// agentLabel names the agent's run on node in tables and charts.
func agentLabel(node string) string {
	if node == agentNoNode {
		return "node agent, idle"
	}
	return "node agent"
}

func agentTable(runs []agentRun) *driver.Table {
	t := &driver.Table{Header: []string{"examples/builtin --resource nodepods --node", "runs", "pods", "time to synced s",
		"peak RSS MiB", "peak RssAnon MiB", "RssFile MiB"}}
	for _, node := range []string{agentNoNode, agentNode} {
		if s := summarizeAgent(runs, node); s.runs > 0 {
			t.Add(node, fmt.Sprint(s.runs), fmt.Sprint(s.pods), driver.Num(s.seconds, 2), driver.Num(s.peakMiB, 1),
				driver.Num(s.anonMiB, 1), driver.Num(s.fileMiB, 1))
		}
	}
	return t
}

// agentComparisons are the agent's figures for the machine-readable line.
func agentComparisons(runs []agentRun) []driver.Comparison {
	idle, full := summarizeAgent(runs, agentNoNode), summarizeAgent(runs, agentNode)
	nan := math.NaN()
	return []driver.Comparison{
		{Key: "agent_idle_rss", What: "node agent (examples/builtin --resource nodepods --node), no pod on its node: peak RSS", Value: idle.peakMiB, Target: nan, MiB: true},
		{Key: "agent_rss", What: fmt.Sprintf("node agent, %d pods on its node: peak RSS", full.pods), Value: full.peakMiB, Target: nan, MiB: true},
		{What: "node agent: peak RSS, its pods' share (over idle)", Value: full.peakMiB - idle.peakMiB, Target: nan, MiB: true},
		{What: "node agent: peak RssAnon, idle", Value: idle.anonMiB, Target: nan, MiB: true},
		{What: fmt.Sprintf("node agent: peak RssAnon, %d pods", full.pods), Value: full.anonMiB, Target: nan, MiB: true},
	}
}

// reportAgent prints the node agent's table.
func reportAgent(w io.Writer, runs []agentRun, pods int) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nA node agent: examples/builtin --resource nodepods --node <node>, built as its users build it, on a node of %d Deployment-shaped pods "+
		"and on a node of none; its peak RSS (VmHWM) once synced, its peak RssAnon (not the binary's pages) and its RssFile (the binary's pages); medians over the rounds:\n\n%s",
		pods, agentTable(runs))
}
