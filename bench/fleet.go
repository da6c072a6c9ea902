package main

import (
	"context"
	"fmt"
	"github.com/syncer-gen/syncer-gen/bench/internal/child"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The fleet part: 3 replicas, each its own process (the fleet program,
// bench/internal/cmd/fleet), share 8 shards of the ConfigMaps through a
// fleet of Leases (package fleet), each shard synced by a syncer of that
// shard; once every shard is synced, the replica
// holding the most is killed with SIGKILL, and the part times how long
// until every one of its shards is synced again by a survivor: the
// takeover, against the lease duration.

const (
	fleetReplicas = 3
	fleetShards   = child.FleetShards
	fleetLease    = child.FleetLease
)

// fleetRun is one round: which shards the victim held, and the takeover.
type fleetRun struct {
	victimShards []int
	takeover     float64 // s from the SIGKILL to the last of its shards synced by a survivor
}

// fleetRounds runs the fleet part once per round, each round a fleet of
// its own name.
func (b *bench) fleetRounds(ctx context.Context) ([]fleetRun, error) {
	var runs []fleetRun
	for round := 1; round <= b.o.rounds; round++ {
		r, err := b.fleetRound(ctx, round)
		if err != nil {
			return nil, fmt.Errorf("fleet, round %d: %w", round, err)
		}
		fmt.Fprintf(os.Stderr, "fleet round %d/%d: replica holding shards %v killed; taken over and synced in %.3fs (lease %s)\n",
			round, b.o.rounds, r.victimShards, r.takeover, fleetLease)
		runs = append(runs, r)
	}
	return runs, nil
}

// fleetEvent is a member's message as the parent received it.
type fleetEvent struct {
	member int
	kind   string
	report child.ShardReport
	at     time.Time
	err    error // the member exited
}

func (b *bench) fleetRound(ctx context.Context, round int) (fleetRun, error) {
	var r fleetRun
	// What the shards must hold together: the namespace's ConfigMaps now
	// (other parts, run before, may have created some).
	l, err := b.cs.CoreV1().ConfigMaps(b.o.namespace).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return r, err
	}
	want := len(l.Items)
	if l.RemainingItemCount != nil {
		want += int(*l.RemainingItemCount)
	}
	name := fmt.Sprintf("bench-fleet-r%d", round)
	events := make(chan fleetEvent, 64)
	var members []*driver.Child
	defer func() {
		for _, m := range members {
			m.Kill()
		}
	}()
	for i := range fleetReplicas {
		m, err := b.startProgram(progFleet, driver.Contender{Name: ours}, b.o, round,
			"-fleet="+fmt.Sprintf("replica-%d", i), "-fleet-name="+name)
		if err != nil {
			return r, err
		}
		members = append(members, m)
		go func() {
			for line := range m.Lines {
				kind, body, _ := strings.Cut(line, " ")
				var rep child.ShardReport
				if err := driver.ParseMsg(line, kind, &rep); err != nil {
					events <- fleetEvent{member: i, err: fmt.Errorf("%s: %q", err, body)}
					return
				}
				events <- fleetEvent{member: i, kind: kind, report: rep, at: time.Now()}
			}
			<-m.Waited
			events <- fleetEvent{member: i, err: fmt.Errorf("exited (%v); its stderr:\n%s", m.Err, m.Stderr)}
		}()
	}
	holder := map[int]int{}  // shard -> member that synced it and holds it
	objects := map[int]int{} // shard -> its objects
	killed, victim := time.Time{}, -1
	deadline := time.NewTimer(b.o.timeout)
	defer deadline.Stop()
	for {
		select {
		case e := <-events:
			switch {
			case e.err != nil && e.member == victim:
				continue // the SIGKILL
			case e.err != nil:
				return r, fmt.Errorf("replica-%d: %w", e.member, e.err)
			case e.kind == child.MsgHeld:
				if h, ok := holder[e.report.Shard]; ok && h != victim {
					return r, fmt.Errorf("shard %d synced by replica-%d while replica-%d holds it", e.report.Shard, e.member, h)
				}
				holder[e.report.Shard], objects[e.report.Shard] = e.member, e.report.Objects
			case e.kind == child.MsgReleased:
				if holder[e.report.Shard] == e.member {
					delete(holder, e.report.Shard)
				}
			}
		case <-deadline.C:
			return r, fmt.Errorf("not every shard synced once within %s, with %d objects in all (want %d): held %v", b.o.timeout, total(objects), want, holder)
		case <-ctx.Done():
			return r, ctx.Err()
		}
		if len(holder) < fleetShards {
			continue
		}
		sum := total(objects)
		switch {
		case victim < 0 && sum == want && b.fleetSettled(holder):
			// Every shard synced, once: kill the replica holding the most.
			counts := make([]int, fleetReplicas)
			for _, m := range holder {
				counts[m]++
			}
			victim = slices.Index(counts, slices.Max(counts))
			for s, m := range holder {
				if m == victim {
					r.victimShards = append(r.victimShards, s)
				}
			}
			slices.Sort(r.victimShards)
			killed = time.Now()
			if err := members[victim].SIGKILL(); err != nil {
				return r, err
			}
		case victim >= 0 && !slices.Contains(slices.Collect(maps.Values(holder)), victim):
			if sum != want {
				return r, fmt.Errorf("after the takeover the shards hold %d objects, want %d", sum, want)
			}
			r.takeover = time.Since(killed).Seconds()
			return r, nil
		}
	}
}

// total is the objects of the shards together.
func total(objects map[int]int) int {
	n := 0
	for _, o := range objects {
		n += o
	}
	return n
}

// fleetSettled tells whether the fleet is balanced: each replica holds
// floor or ceil of its share, so that no shard is about to move.
func (b *bench) fleetSettled(holder map[int]int) bool {
	counts := make([]int, fleetReplicas)
	for _, m := range holder {
		counts[m]++
	}
	return slices.Max(counts)-slices.Min(counts) <= 1
}

func fleetTable(runs []fleetRun) *driver.Table {
	t := &driver.Table{Header: []string{"round", "replicas", "shards", "killed replica's shards", "lease s", "taken over and synced s"}}
	for i, r := range runs {
		t.Add(strconv.Itoa(i+1), strconv.Itoa(fleetReplicas), strconv.Itoa(fleetShards), fmt.Sprint(r.victimShards),
			driver.Num(fleetLease.Seconds(), 0), driver.Num(r.takeover, 3))
	}
	return t
}

// fleetComparisons: the target, the takeover within the lease
// duration and 2 s.
func fleetComparisons(runs []fleetRun) []driver.Comparison {
	var ts []float64
	for _, r := range runs {
		ts = append(ts, r.takeover)
	}
	v := math.NaN()
	if len(ts) > 0 {
		v = driver.Median(ts)
	}
	return []driver.Comparison{{Key: "takeover_s", What: "fleet: seconds from a SIGKILL to its shards synced by the others (median)", Value: v,
		Target: fleetLease.Seconds() + 2, Secs: true}}
}

// reportFleet prints the fleet part, when it ran.
func reportFleet(w io.Writer, runs []fleetRun, n int, cs []driver.Comparison) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nFleet: %d replicas, each its own process, share %d shards of %d ConfigMaps through Leases (lease %s); "+
		"once every shard is synced the replica holding the most is killed with SIGKILL; the time until a survivor has synced each of its shards:\n\n%s\n",
		fleetReplicas, fleetShards, n, fleetLease, fleetTable(runs))
	fmt.Fprintf(w, "Fleet ratios:\n\n%s\n", driver.ComparisonTable(cs))
}
