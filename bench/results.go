package main

import (
	"math"
	"slices"
	"strings"
)

// result is one child run of one contender.
type result struct {
	contender string
	round     int
	sync      syncReport
	steady    *steadyReport
	writeRate float64 // updates per second the parent wrote in the steady state
	pool      int     // objects the steady state's updates cycle over
	exit      exitReport
}

// summary holds the medians over the rounds of one contender; NaN where
// the contender has no such figure.
type summary struct {
	contender    string
	runs         int
	syncSeconds  float64
	syncMin      float64
	syncMax      float64
	hwmSyncMiB   float64
	hwmExitMiB   float64
	allocMiB     float64
	readMiB      float64 // read from the server's sockets up to synced
	objects      float64
	cpuPer1k     float64 // CPU seconds per 1,000 events in the steady state
	lagP50ms     float64
	lagP99ms     float64
	steadyEvents float64
	writeRate    float64
	// After the steady state: memory (medians), watch restarts (largest
	// of any round) and the slow handler, for the contenders that have one.
	hwmSteadyMiB float64
	liveHeapMiB  float64
	requests     float64 // max
	restarts     float64 // max
	reasons      string
	slowCalls    float64
	slowCallMs   float64 // mean time of one call
	slowPending  float64
	slowMaxDepth float64 // max
	pool         float64
	notes        string
}

const mib = 1 << 20

// summarize returns the medians of each contender's runs, in the order of names.
func summarize(rs []result, names []string) []summary {
	out := make([]summary, 0, len(names))
	for _, name := range names {
		var mine []result
		for _, r := range rs {
			if r.contender == name {
				mine = append(mine, r)
			}
		}
		out = append(out, summarizeOne(name, mine))
	}
	return out
}

func summarizeOne(name string, rs []result) summary {
	med := func(f func(result) (float64, bool)) float64 {
		var xs []float64
		for _, r := range rs {
			if x, ok := f(r); ok {
				xs = append(xs, x)
			}
		}
		return median(xs)
	}
	always := func(f func(result) float64) func(result) (float64, bool) {
		return func(r result) (float64, bool) { return f(r), true }
	}
	steady := func(f func(*steadyReport) float64) func(result) (float64, bool) {
		return func(r result) (float64, bool) {
			if r.steady == nil || r.steady.Events == 0 {
				return 0, false
			}
			return f(r.steady), true
		}
	}
	most := func(f func(*steadyReport) float64) float64 {
		m := math.NaN()
		for _, r := range rs {
			if x, ok := steady(f)(r); ok && !(x <= m) {
				m = x
			}
		}
		return m
	}
	syncMin, syncMax := math.NaN(), math.NaN()
	for i, r := range rs {
		if i == 0 || r.sync.SyncSeconds < syncMin {
			syncMin = r.sync.SyncSeconds
		}
		if i == 0 || r.sync.SyncSeconds > syncMax {
			syncMax = r.sync.SyncSeconds
		}
	}
	var noteList, reasonList []string
	for _, r := range rs {
		noteList = addNew(noteList, r.sync.Note)
		if r.steady != nil {
			reasonList = addNew(reasonList, r.steady.RestartReasons)
		}
	}
	return summary{
		contender:    name,
		runs:         len(rs),
		syncSeconds:  med(always(func(r result) float64 { return r.sync.SyncSeconds })),
		syncMin:      syncMin,
		syncMax:      syncMax,
		hwmSyncMiB:   med(always(func(r result) float64 { return float64(r.sync.HWMBytes) / mib })),
		hwmExitMiB:   med(always(func(r result) float64 { return float64(r.exit.HWMBytes) / mib })),
		allocMiB:     med(always(func(r result) float64 { return float64(r.sync.TotalAllocBytes) / mib })),
		readMiB:      med(always(func(r result) float64 { return float64(r.sync.BytesRead) / mib })),
		objects:      med(always(func(r result) float64 { return float64(r.sync.Objects) })),
		cpuPer1k:     med(steady(func(s *steadyReport) float64 { return s.CPUSeconds / float64(s.Events) * 1000 })),
		lagP50ms:     med(steady(func(s *steadyReport) float64 { return s.LagP50Seconds * 1000 })),
		lagP99ms:     med(steady(func(s *steadyReport) float64 { return s.LagP99Seconds * 1000 })),
		steadyEvents: med(steady(func(s *steadyReport) float64 { return float64(s.Events) })),
		writeRate:    med(func(r result) (float64, bool) { return r.writeRate, r.steady != nil && r.steady.Events > 0 }),
		hwmSteadyMiB: med(steady(func(s *steadyReport) float64 { return float64(s.HWMBytes) / mib })),
		liveHeapMiB:  med(steady(func(s *steadyReport) float64 { return float64(s.LiveHeapBytes) / mib })),
		requests:     most(func(s *steadyReport) float64 { return float64(s.Requests) }),
		restarts:     most(func(s *steadyReport) float64 { return float64(s.Restarts) }),
		reasons:      strings.Join(reasonList, "; "),
		slowCalls:    med(steady(func(s *steadyReport) float64 { return float64(s.SlowCalls) })),
		slowCallMs: med(func(r result) (float64, bool) {
			if r.steady == nil || r.steady.SlowCalls == 0 {
				return 0, false
			}
			return r.steady.SlowBusySeconds / float64(r.steady.SlowCalls) * 1000, true
		}),
		slowPending:  med(steady(func(s *steadyReport) float64 { return float64(s.SlowPending) })),
		slowMaxDepth: most(func(s *steadyReport) float64 { return float64(s.SlowMaxDepth) }),
		pool:         med(func(r result) (float64, bool) { return float64(r.pool), r.steady != nil && r.steady.Events > 0 }),
		notes:        strings.Join(noteList, "; "),
	}
}

// addNew appends s to list unless it is empty or already there.
func addNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// find returns the summary of name, or one of NaNs when it did not run.
func find(ss []summary, name string) summary {
	for _, s := range ss {
		if s.contender == name {
			return s
		}
	}
	nan := math.NaN()
	return summary{contender: name, syncSeconds: nan, syncMin: nan, syncMax: nan, hwmSyncMiB: nan, hwmExitMiB: nan, allocMiB: nan, readMiB: nan,
		objects: nan, cpuPer1k: nan, lagP50ms: nan, lagP99ms: nan, steadyEvents: nan, writeRate: nan,
		hwmSteadyMiB: nan, liveHeapMiB: nan, requests: nan, restarts: nan, slowCalls: nan, slowCallMs: nan, slowPending: nan, slowMaxDepth: nan, pool: nan}
}
