package main

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
)

// The fleet step: replicas of examples/crd --reconcile share the widgets'
// shards through Leases.
const (
	fleetShards = 8
	fleetLease  = 4 * time.Second
	fleetFixes  = 16 // widgets changed while a replica is dead
)

var heldLine = regexp.MustCompile(`^replica (\S+) holds \d+ of \d+ shards: \[([\d ]*)\]$`)

// runFleet runs three replicas over eight shards, kills one with SIGKILL,
// waits for its shards to be taken over, changes widgets in every shard and
// waits for each to be reconciled, then starts the replica again and waits
// for the shards to be rebalanced.
func (d *demo) runFleet(ctx context.Context) error {
	replicas := map[string]*child{}
	start := func(name string) error {
		c, err := d.launch("crd", "--kubeconfig", d.kubeconfig, "--namespace", d.o.namespace, "--reconcile",
			"--shards", strconv.Itoa(fleetShards), "--replica", name, "--lease-duration", fleetLease.String())
		replicas[name] = c
		return err
	}
	for _, r := range []string{"r1", "r2", "r3"} {
		if err := start(r); err != nil {
			return err
		}
	}
	held, err := waitHeld(ctx, replicas, balanced)
	if err != nil {
		return err
	}
	d.ui.ok("the %d shards are held: %s", fleetShards, describe(held))

	lost := held["r2"]
	d.ui.action("kill replica r2 (SIGKILL), which holds shards %v", lost)
	killed := time.Now()
	replicas["r2"].kill()
	delete(replicas, "r2")
	if held, err = waitHeld(ctx, replicas, covered); err != nil {
		return err
	}
	d.ui.ok("its shards taken over in %s (lease %s): %s", time.Since(killed).Round(100*time.Millisecond), fleetLease, describe(held))

	widgets, err := fixture.NewWidgets(d.srv.Config(), d.o.namespace)
	if err != nil {
		return err
	}
	d.ui.action("take the owner of widget-00001 to widget-%05d away", fleetFixes)
	for i := 1; i <= fleetFixes; i++ {
		w, err := widgets.Get(ctx, fmt.Sprintf("widget-%05d", i))
		if err != nil {
			return err
		}
		w.Spec.Owner = ""
		if _, err := widgets.Update(ctx, w); err != nil {
			return err
		}
	}
	by, err := waitReconciled(ctx, widgets, replicas, d.o.namespace)
	if err != nil {
		return err
	}
	d.ui.ok("each of the %d widgets reconciled by the replica holding its shard (%s)", fleetFixes, by)

	d.ui.action("start replica r2 again")
	if err := start("r2"); err != nil {
		return err
	}
	if held, err = waitHeld(ctx, replicas, balanced); err != nil {
		return err
	}
	d.ui.ok("rebalanced: %s", describe(held))
	for _, r := range slices.Sorted(maps.Keys(replicas)) {
		if err := replicas[r].interrupt(ctx, exitDeadline); err != nil {
			return err
		}
	}
	d.ui.ok("the replicas exited 0 on SIGINT, handing their shards over")
	return nil
}

// waitHeld polls what each replica last said it holds until done says so.
func waitHeld(ctx context.Context, replicas map[string]*child, done func(map[string][]int) bool) (map[string][]int, error) {
	ctx, cancel := context.WithTimeout(ctx, syncDeadline)
	defer cancel()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		held := map[string][]int{}
		for name, c := range replicas {
			held[name] = nil
			for _, l := range c.out.Lines() {
				if m := heldLine.FindStringSubmatch(l); m != nil && m[1] == name {
					held[name] = nil
					for _, f := range strings.Fields(m[2]) {
						n, _ := strconv.Atoi(f)
						held[name] = append(held[name], n)
					}
				}
			}
		}
		if done(held) {
			return held, nil
		}
		select {
		case <-ctx.Done():
			return held, fmt.Errorf("shards held %s: %w", describe(held), context.Cause(ctx))
		case <-t.C:
		}
	}
}

// covered: every shard held, by exactly one replica.
func covered(held map[string][]int) bool {
	seen := map[int]int{}
	for _, shards := range held {
		for _, s := range shards {
			seen[s]++
		}
	}
	for s := range fleetShards {
		if seen[s] != 1 {
			return false
		}
	}
	return len(seen) == fleetShards
}

// balanced: covered, and each replica holds floor or ceil of its share.
func balanced(held map[string][]int) bool {
	lo := fleetShards / len(held)
	hi := (fleetShards + len(held) - 1) / len(held)
	for _, shards := range held {
		if len(shards) < lo || len(shards) > hi {
			return false
		}
	}
	return covered(held)
}

func describe(held map[string][]int) string {
	var parts []string
	for _, r := range slices.Sorted(maps.Keys(held)) {
		parts = append(parts, fmt.Sprintf("%s=%v", r, held[r]))
	}
	return strings.Join(parts, " ")
}

// waitReconciled waits until the server has every widget changed Pending,
// and says how many of those writes each replica printed (a shard's first
// pass after a takeover writes without printing).
func waitReconciled(ctx context.Context, widgets *fixture.Widgets, replicas map[string]*child, ns string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, eventDeadline)
	defer cancel()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		pending := 0
		for i := 1; i <= fleetFixes; i++ {
			if w, err := widgets.Get(ctx, fmt.Sprintf("widget-%05d", i)); err == nil && w.Status.Phase == "Pending" {
				pending++
			}
		}
		if pending == fleetFixes {
			var parts []string
			for _, r := range slices.Sorted(maps.Keys(replicas)) {
				n := 0
				for _, l := range replicas[r].out.Lines() {
					if strings.HasPrefix(l, ns+"/widget-000") && strings.HasSuffix(l, ": Pending") && l != ns+"/widget-00000: Pending" {
						n++
					}
				}
				parts = append(parts, fmt.Sprintf("%s=%d", r, n))
			}
			return "printed by " + strings.Join(parts, " "), nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("%d of %d changed widgets reconciled: %w", pending, fleetFixes, context.Cause(ctx))
		case <-t.C:
		}
	}
}
