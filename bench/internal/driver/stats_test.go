package driver

import (
	"math"
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
		if got := Median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("median(nil) = %v, want NaN", got)
	}
	in := []float64{3, 1, 2}
	Median(in)
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
		if got := Percentile(ds, tc.p); got != tc.want {
			t.Errorf("percentile(1..100ms, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %v, want 0", got)
	}
	p50, p99 := LagPercentiles([]time.Duration{time.Second})
	if p50 != time.Second || p99 != time.Second {
		t.Errorf("lagPercentiles of one = %v, %v", p50, p99)
	}
}

func TestRatio(t *testing.T) {
	if got := Ratio(3, 2); got != 1.5 {
		t.Errorf("ratio(3, 2) = %v", got)
	}
	for _, tc := range [][2]float64{{1, 0}, {math.NaN(), 1}, {1, math.NaN()}} {
		if got := Ratio(tc[0], tc[1]); !math.IsNaN(got) {
			t.Errorf("ratio(%v, %v) = %v, want NaN", tc[0], tc[1], got)
		}
	}
}

func TestSummarize(t *testing.T) {
	const ours, floorRead, keepAll = "ours", "floor-read", "keep-all"
	rs := []Result{
		{Contender: ours, Sync: SyncReport{SyncSeconds: 3, HWMBytes: 30 * MiB, Objects: 10, Note: "mode=watchlist"},
			Steady: &SteadyReport{Events: 1000, CPUSeconds: 0.4, LagP50Seconds: 0.002, LagP99Seconds: 0.02}},
		{Contender: floorRead, Sync: SyncReport{SyncSeconds: 9}},
		{Contender: ours, Sync: SyncReport{SyncSeconds: 1, HWMBytes: 10 * MiB, Objects: 10, Note: "mode=watchlist"},
			Steady: &SteadyReport{Events: 2000, CPUSeconds: 0.4, LagP50Seconds: 0.004, LagP99Seconds: 0.04}},
		{Contender: ours, Sync: SyncReport{SyncSeconds: 2, HWMBytes: 20 * MiB, Objects: 10, Note: "mode=list"}},
	}
	ss := Summarize(rs, []string{ours, floorRead})
	if len(ss) != 2 || ss[0].Contender != ours || ss[1].Contender != floorRead {
		t.Fatalf("summaries out of order: %+v", ss)
	}
	o := ss[0]
	if o.Runs != 3 || o.SyncSeconds != 2 || o.SyncMin != 1 || o.SyncMax != 3 || o.HWMSyncMiB != 20 || o.Objects != 10 {
		t.Errorf("ours summary = %+v", o)
	}
	// Steady figures come from the two runs that have them: 0.4 and 0.2 s per 1k.
	if math.Abs(o.CPUPer1k-0.3) > 1e-9 || math.Abs(o.LagP50ms-3) > 1e-9 || math.Abs(o.LagP99ms-30) > 1e-9 {
		t.Errorf("ours steady = cpu %v p50 %v p99 %v", o.CPUPer1k, o.LagP50ms, o.LagP99ms)
	}
	if o.Notes != "mode=watchlist; mode=list" {
		t.Errorf("notes = %q", o.Notes)
	}
	if !math.IsNaN(ss[1].CPUPer1k) {
		t.Errorf("floor-read has a steady figure: %v", ss[1].CPUPer1k)
	}
	if m := Find(ss, keepAll); !math.IsNaN(m.SyncSeconds) {
		t.Errorf("missing contender has figures: %+v", m)
	}
}

// Idle runs are kept apart: they give IdleMiB and count in no other
// median; a run without an RssAnon sample counts in none of AnonMiB.
func TestSummarizeKeepsIdleRunsApart(t *testing.T) {
	rs := []Result{
		{Contender: "ours", Idle: true, Sync: SyncReport{SyncSeconds: 0.01, HWMBytes: 15 * MiB}, AnonBytes: 3 * MiB},
		{Contender: "ours", Idle: true, Sync: SyncReport{SyncSeconds: 0.01, HWMBytes: 17 * MiB}, AnonBytes: 3 * MiB},
		{Contender: "ours", Sync: SyncReport{SyncSeconds: 2, HWMBytes: 60 * MiB, Objects: 10}, AnonBytes: 45 * MiB},
		{Contender: "ours", Sync: SyncReport{SyncSeconds: 4, HWMBytes: 80 * MiB, Objects: 10}},
		{Contender: "other", Idle: true, Sync: SyncReport{HWMBytes: 99 * MiB}},
	}
	o := Summarize(rs, []string{"ours"})[0]
	if o.Runs != 2 || o.SyncSeconds != 3 || o.HWMSyncMiB != 70 || o.IdleMiB != 16 || o.AnonMiB != 45 || o.Objects != 10 {
		t.Errorf("summary = %+v", o)
	}
	if s := Summarize(rs[2:4], []string{"ours"})[0]; !math.IsNaN(s.IdleMiB) {
		t.Errorf("no idle run: IdleMiB %v, want NaN", s.IdleMiB)
	}
	if s := Find(nil, "ours"); !math.IsNaN(s.IdleMiB) || !math.IsNaN(s.AnonMiB) {
		t.Errorf("a contender that did not run: %+v", s)
	}
	if !strings.Contains(MedianTable([]Summary{o}).String(), "|              16.0 |                 70.0 |             45.0 |") {
		t.Errorf("table:\n%s", MedianTable([]Summary{o}))
	}
}

func TestCPUSlope(t *testing.T) {
	// 2 ms of CPU a second whatever happens, and 0.1 ms per event: the
	// slope is the per-event cost, not CPU per event (which holds the
	// idle cost divided by few events at a low rate).
	point := func(rate, secs float64) SteadyReport {
		return SteadyReport{Events: int(rate * secs), Seconds: secs, CPUSeconds: secs * (0.002 + rate*0.0001)}
	}
	s0 := point(200, 20)
	r := Result{Steady: &s0, Slope: []SteadyReport{point(1000, 5), point(3000, 5)}}
	got, ok := CPUSlope(r)
	if !ok || math.Abs(got-0.0001) > 1e-12 {
		t.Errorf("CPUSlope = %v, %v; want 0.0001", got, ok)
	}
	if _, ok := CPUSlope(Result{Steady: &s0}); ok {
		t.Error("a slope from one point")
	}
	if _, ok := CPUSlope(Result{Slope: []SteadyReport{point(1000, 5), point(1000, 10)}}); ok {
		t.Error("a slope from points at one rate")
	}
}
