package main

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 5, 1}, 5},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil) = %v, want NaN", got)
	}
	in := []float64{3, 1, 2}
	median(in)
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("median sorted its input: %v", in)
	}
}

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 1ms..100ms, in reverse
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{
		{50, 50 * time.Millisecond},
		{99, 99 * time.Millisecond},
		{100, 100 * time.Millisecond},
		{0.1, time.Millisecond},
	} {
		if got := percentile(ds, tc.p); got != tc.want {
			t.Errorf("percentile(1..100ms, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
	p50, p99 := lagPercentiles([]time.Duration{time.Second})
	if p50 != time.Second || p99 != time.Second {
		t.Errorf("lagPercentiles of one = %v, %v", p50, p99)
	}
}

func TestRatio(t *testing.T) {
	if got := ratio(3, 2); got != 1.5 {
		t.Errorf("ratio(3, 2) = %v", got)
	}
	for _, tc := range [][2]float64{{1, 0}, {math.NaN(), 1}, {1, math.NaN()}} {
		if got := ratio(tc[0], tc[1]); !math.IsNaN(got) {
			t.Errorf("ratio(%v, %v) = %v, want NaN", tc[0], tc[1], got)
		}
	}
}

func TestSummarize(t *testing.T) {
	rs := []result{
		{contender: ours, sync: syncReport{SyncSeconds: 3, HWMBytes: 30 * mib, Objects: 10, Note: "mode=watchlist"},
			steady: &steadyReport{Events: 1000, CPUSeconds: 0.4, LagP50Seconds: 0.002, LagP99Seconds: 0.02}},
		{contender: floorRead, sync: syncReport{SyncSeconds: 9}},
		{contender: ours, sync: syncReport{SyncSeconds: 1, HWMBytes: 10 * mib, Objects: 10, Note: "mode=watchlist"},
			steady: &steadyReport{Events: 2000, CPUSeconds: 0.4, LagP50Seconds: 0.004, LagP99Seconds: 0.04}},
		{contender: ours, sync: syncReport{SyncSeconds: 2, HWMBytes: 20 * mib, Objects: 10, Note: "mode=list"}},
	}
	ss := summarize(rs, []string{ours, floorRead})
	if len(ss) != 2 || ss[0].contender != ours || ss[1].contender != floorRead {
		t.Fatalf("summaries out of order: %+v", ss)
	}
	o := ss[0]
	if o.runs != 3 || o.syncSeconds != 2 || o.syncMin != 1 || o.syncMax != 3 || o.hwmSyncMiB != 20 || o.objects != 10 {
		t.Errorf("ours summary = %+v", o)
	}
	// Steady figures come from the two runs that have them: 0.4 and 0.2 s per 1k.
	if math.Abs(o.cpuPer1k-0.3) > 1e-9 || math.Abs(o.lagP50ms-3) > 1e-9 || math.Abs(o.lagP99ms-30) > 1e-9 {
		t.Errorf("ours steady = cpu %v p50 %v p99 %v", o.cpuPer1k, o.lagP50ms, o.lagP99ms)
	}
	if o.notes != "mode=watchlist; mode=list" {
		t.Errorf("notes = %q", o.notes)
	}
	if !math.IsNaN(ss[1].cpuPer1k) {
		t.Errorf("floor-read has a steady figure: %v", ss[1].cpuPer1k)
	}
	if m := find(ss, keepAll); !math.IsNaN(m.syncSeconds) {
		t.Errorf("missing contender has figures: %+v", m)
	}
}

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
