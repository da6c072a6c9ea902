package main

import (
	"context"
	"fmt"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
)

// The projection step: the same pods synced whole (examples/builtin
// --resource pods) and projected to a node agent's fields (--resource
// nodepods: kinds.NodePod), then by one node's agent (--node), each in a
// process of its own, their figures side by side; and the program syncing
// no pods, whose peak RSS is what the process takes whatever it syncs (its
// code's pages, the Go runtime, a connection). Each peak RSS is the
// process's own, read from /proc while it runs once synced.

const (
	agentNode = 1         // the node whose agent the step runs
	noNode    = "nowhere" // a node no pod is on
)

// syncRun is one run of examples/builtin and what it measured.
type syncRun struct {
	label string
	synced
	rss int64 // peak RSS of the process, once synced
}

// runProjection creates the pods, runs the three syncs one after the
// other (so that they do not share the machine) and shows their sync
// time, store bytes and peak RSS, with the projection's ratios to whole
// pods.
func (d *demo) runProjection(ctx context.Context) error {
	if err := d.createPods(ctx); err != nil {
		return err
	}
	node := fixture.NodeOf(agentNode, d.o.nodes)
	runs := []struct {
		label, resource string
		want            int
		args            []string
	}{
		{"pods (whole)", "pods", d.o.pods, nil},
		{"nodepods (projected)", "nodepods", d.o.pods, nil},
		{"nodepods --node " + node, "nodepods", fixture.CountOf(d.o.pods, agentNode, d.o.nodes), []string{"--node", node}},
		{"no pods (--node " + noNode + ")", "pods", 0, []string{"--node", noNode}},
	}
	var got []syncRun
	for _, r := range runs {
		s, rss, err := d.builtinPeak(ctx, r.resource, r.want, r.args...)
		if err != nil {
			return err
		}
		got = append(got, syncRun{label: r.label, synced: s, rss: rss})
	}
	whole, projected, agent, none := got[0], got[1], got[2], got[3]
	// A projection syncs as its full syncer does: the same protocol.
	if projected.mode != whole.mode {
		return fmt.Errorf("the projected syncer synced in mode %s, the full one in %s", projected.mode, whole.mode)
	}
	if projected.store >= whole.store {
		return fmt.Errorf("the projected store keeps %s, whole pods %s", size.Format(projected.store), size.Format(whole.store))
	}

	d.ui.info("%-26s %6s %-9s %7s %10s %10s %9s", "examples/builtin", "pods", "mode", "sync", "store", "per pod", "peak RSS")
	for _, r := range got {
		perPod := "-"
		if r.objects > 0 {
			perPod = size.Format(r.store / int64(r.objects))
		}
		d.ui.info("%-26s %6d %-9s %6.2fs %10s %10s %9s", r.label, r.objects, r.mode, r.took.Seconds(), size.Format(r.store), perPod, size.Format(r.rss))
	}
	ratio := func(a, b float64) string { return fmt.Sprintf("%.2fx", a/b) }
	d.ui.info("%-26s %6s %-9s %7s %10s %10s %9s", "projected / whole", "", "",
		ratio(projected.took.Seconds(), whole.took.Seconds()), ratio(float64(projected.store), float64(whole.store)), "",
		ratio(float64(projected.rss), float64(whole.rss)))
	d.ui.ok("the projection's store keeps %s the bytes of whole pods, %s's agent %s of them (by LIST + WATCH: a field selector lists)",
		ratio(float64(projected.store), float64(whole.store)), node, ratio(float64(agent.store), float64(whole.store)))
	d.ui.ok("peak RSS: whole pods %s, projected %s, %s's agent %s, no pods %s (the program itself: its code, the Go runtime, a connection)",
		size.Format(whole.rss), size.Format(projected.rss), node, size.Format(agent.rss), size.Format(none.rss))
	return nil
}

// createPods creates the step's pods in the demo's namespace, under a
// progress bar.
func (d *demo) createPods(ctx context.Context) error {
	started := time.Now()
	bar := progress.New(d.ui.out, "    creating pods", d.o.pods)
	err := fixture.CreatePods(ctx, d.srv.Client(), d.o.namespace, d.o.pods, d.o.nodes, d.o.workers, func() { bar.Add(1) })
	bar.Finish()
	if err != nil {
		return err
	}
	took := time.Since(started)
	d.ui.ok("%d Deployment-shaped pods over %d nodes (2 writes each: created, then their status) in %.1fs (%.0f/s)",
		d.o.pods, d.o.nodes, took.Seconds(), float64(d.o.pods)/took.Seconds())
	return nil
}
