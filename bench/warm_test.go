package main

import (
	"slices"
	"testing"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

func TestChurnPlan(t *testing.T) {
	p := newPopulation(300)
	for round := range 3 {
		before := slices.Clone(p.live)
		deleted, updated, created := p.churnPlan(3)
		if len(p.live) != 300 || len(deleted) != 3 || len(updated) != 3 || len(created) != 3 {
			t.Fatalf("round %d: %d live, plan %v %v %v", round, len(p.live), deleted, updated, created)
		}
		for _, tc := range []struct {
			what        string
			is          []int
			wasLive     bool
			isLiveAfter bool
		}{
			{"deleted", deleted, true, false},
			{"updated", updated, true, true},
			{"created", created, false, true},
		} {
			for _, i := range tc.is {
				if slices.Contains(before, i) != tc.wasLive || slices.Contains(p.live, i) != tc.isLiveAfter {
					t.Errorf("round %d: %s %d: live before %v, after %v", round, tc.what, i, slices.Contains(before, i), slices.Contains(p.live, i))
				}
				if i < 100 && tc.what != "created" {
					t.Errorf("round %d: %s %d, one of the steady state's first objects", round, tc.what, i)
				}
			}
		}
	}
}

func TestCheckStore(t *testing.T) {
	want := driver.Digest([]string{"ns/a 1"})
	for _, tc := range []struct {
		got string
		ok  bool
	}{
		{want, true},
		{driver.Digest([]string{"ns/a 2"}), false},
		{"", false}, // no digest reported
	} {
		err := checkStore(driver.Result{Contender: oursWarm, Sync: driver.SyncReport{StoreDigest: tc.got}}, want)
		if (err == nil) != tc.ok {
			t.Errorf("checkStore(%q): %v, want ok %v", tc.got, err, tc.ok)
		}
	}
}
