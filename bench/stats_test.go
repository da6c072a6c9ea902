package main

import (
	"slices"
	"strings"
	"testing"
)

func TestRoundOrder(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	join := func(xs []string) string { return strings.Join(xs, "") }
	if got := join(roundOrder(names, 1)); got != "abcde" {
		t.Errorf("round 1: %s, want the given order", got)
	}
	seen := map[string]bool{}
	for round := 2; round <= 5; round++ {
		got := roundOrder(names, round)
		s := join(got)
		sorted := append([]string(nil), got...)
		slices.Sort(sorted)
		if join(sorted) != "abcde" {
			t.Errorf("round %d: %s is not a permutation", round, s)
		}
		if s != join(roundOrder(names, round)) {
			t.Errorf("round %d: order not repeatable", round)
		}
		seen[s] = true
	}
	if len(seen) < 3 {
		t.Errorf("rounds 2-5 gave only %d orders: %v", len(seen), seen)
	}
	if join(names) != "abcde" {
		t.Errorf("roundOrder changed its input: %v", names)
	}
}
