package driver

import (
	"math"
	"slices"
	"strings"
	"time"
)

// Result is one child run of one contender.
type Result struct {
	Contender string
	Round     int
	// Idle: the run synced an empty namespace, which shows what the
	// program takes before any object (its code, the Go runtime, a
	// connection); Summarize keeps it apart from the rounds.
	Idle bool
	Sync SyncReport
	// AnonBytes is the child's peak RssAnon up to synced (SampleAnon): its
	// resident memory that is not file pages, the binary's own code among
	// them.
	AnonBytes int64
	// Server is what kube-apiserver paid from the child's start of work
	// to its synced report, for the parts that measure it; nil otherwise.
	Server *ServerCost
	Steady *SteadyReport
	// Quiet is what the synced child cost with no event, for the
	// contenders that measure it (Contender.Quiet).
	Quiet *QuietReport
	// Slope are the steady states after Steady at other update rates
	// (Contender.Slope).
	Slope     []SteadyReport
	WriteRate float64 // updates per second the parent wrote in the steady state
	Pool      int     // objects the steady state's updates cycle over
	Exit      ExitReport
}

// ServerCost is what kube-apiserver paid for one run: its CPU time
// (utime+stime of /proc/<pid>/stat) and the bytes it allocated
// (go_memstats_alloc_bytes_total of its /metrics).
type ServerCost struct {
	CPU            time.Duration
	AllocatedBytes float64
	// Goroutines is kube-apiserver's go_goroutines at synced less at the
	// start of work: what the child's open requests (its watches) hold.
	Goroutines float64
	// RSSBytes is kube-apiserver's VmRSS at synced.
	RSSBytes int64
	// SteadyCPU is kube-apiserver's CPU over the child's steady state, for
	// a contender that has one (Contender.Steady): what the events the
	// parent writes cost it, delivered to the child's watches.
	SteadyCPU time.Duration
}

// Summary holds the medians over the rounds of one contender; NaN where
// the contender has no such figure.
type Summary struct {
	Contender    string
	Runs         int
	SyncSeconds  float64
	SyncMin      float64
	SyncMax      float64
	HWMSyncMiB   float64
	IdleMiB      float64 // peak RSS of the idle runs, on an empty namespace
	AnonMiB      float64 // peak RssAnon up to synced
	hwmExitMiB   float64
	AllocMiB     float64
	ReadMiB      float64 // read from the server's sockets up to synced
	StoreMiB     float64 // what our syncer's store says it holds at sync (Store.Bytes); NaN for others
	ServerCPU    float64 // kube-apiserver's CPU seconds for the sync; NaN where not measured
	ServerMiB    float64 // the MiB kube-apiserver allocated for the sync; NaN where not measured
	Objects      float64
	CPUPer1k     float64 // CPU seconds per 1,000 events in the steady state
	LagP50ms     float64
	LagP99ms     float64
	SteadyEvents float64
	WriteRate    float64
	// SlopePer1k is the marginal CPU seconds per 1,000 events: the slope of
	// CPU per second against events per second over the steady state and
	// the slope phases (a least-squares line; medians of the runs'). NaN
	// without slope phases.
	SlopePer1k float64
	// QuietCPUms and QuietWakeups are the CPU milliseconds and the
	// wake-ups per second of the synced contender with no event.
	QuietCPUms   float64
	QuietWakeups float64
	// After the steady state: memory (medians), watch restarts (largest
	// of any round) and the slow handler, for the contenders that have one.
	HWMSteadyMiB float64
	LiveHeapMiB  float64
	Requests     float64 // max
	Restarts     float64 // max
	Reasons      string
	SlowCalls    float64
	SlowCallMs   float64 // mean time of one call
	SlowPending  float64
	SlowMaxDepth float64 // max
	Pool         float64
	Notes        string
}

const MiB = 1 << 20

// Summarize returns the medians of each contender's runs, in the order of names.
func Summarize(rs []Result, names []string) []Summary {
	out := make([]Summary, 0, len(names))
	for _, name := range names {
		var mine, idle []Result
		for _, r := range rs {
			switch {
			case r.Contender != name:
			case r.Idle:
				idle = append(idle, r)
			default:
				mine = append(mine, r)
			}
		}
		s := summarizeOne(name, mine)
		var idleMiB []float64
		for _, r := range idle {
			idleMiB = append(idleMiB, float64(r.Sync.HWMBytes)/MiB)
		}
		s.IdleMiB = Median(idleMiB)
		out = append(out, s)
	}
	return out
}

func summarizeOne(name string, rs []Result) Summary {
	med := func(f func(Result) (float64, bool)) float64 {
		var xs []float64
		for _, r := range rs {
			if x, ok := f(r); ok {
				xs = append(xs, x)
			}
		}
		return Median(xs)
	}
	always := func(f func(Result) float64) func(Result) (float64, bool) {
		return func(r Result) (float64, bool) { return f(r), true }
	}
	steady := func(f func(*SteadyReport) float64) func(Result) (float64, bool) {
		return func(r Result) (float64, bool) {
			if r.Steady == nil || r.Steady.Events == 0 {
				return 0, false
			}
			return f(r.Steady), true
		}
	}
	most := func(f func(*SteadyReport) float64) float64 {
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
		if i == 0 || r.Sync.SyncSeconds < syncMin {
			syncMin = r.Sync.SyncSeconds
		}
		if i == 0 || r.Sync.SyncSeconds > syncMax {
			syncMax = r.Sync.SyncSeconds
		}
	}
	var noteList, reasonList []string
	for _, r := range rs {
		noteList = addNew(noteList, r.Sync.Note)
		if r.Steady != nil {
			reasonList = addNew(reasonList, r.Steady.RestartReasons)
		}
	}
	return Summary{
		Contender:   name,
		Runs:        len(rs),
		SyncSeconds: med(always(func(r Result) float64 { return r.Sync.SyncSeconds })),
		SyncMin:     syncMin,
		SyncMax:     syncMax,
		HWMSyncMiB:  med(always(func(r Result) float64 { return float64(r.Sync.HWMBytes) / MiB })),
		AnonMiB:     med(func(r Result) (float64, bool) { return float64(r.AnonBytes) / MiB, r.AnonBytes > 0 }),
		hwmExitMiB:  med(always(func(r Result) float64 { return float64(r.Exit.HWMBytes) / MiB })),
		AllocMiB:    med(always(func(r Result) float64 { return float64(r.Sync.TotalAllocBytes) / MiB })),
		ReadMiB:     med(always(func(r Result) float64 { return float64(r.Sync.BytesRead) / MiB })),
		StoreMiB: med(func(r Result) (float64, bool) {
			return float64(r.Sync.StoreBytes) / MiB, r.Sync.StoreBytes > 0
		}),
		ServerCPU: med(func(r Result) (float64, bool) {
			if r.Server == nil {
				return 0, false
			}
			return r.Server.CPU.Seconds(), true
		}),
		ServerMiB: med(func(r Result) (float64, bool) {
			if r.Server == nil {
				return 0, false
			}
			return r.Server.AllocatedBytes / MiB, true
		}),
		Objects:      med(always(func(r Result) float64 { return float64(r.Sync.Objects) })),
		CPUPer1k:     med(steady(func(s *SteadyReport) float64 { return s.CPUSeconds / float64(s.Events) * 1000 })),
		LagP50ms:     med(steady(func(s *SteadyReport) float64 { return s.LagP50Seconds * 1000 })),
		LagP99ms:     med(steady(func(s *SteadyReport) float64 { return s.LagP99Seconds * 1000 })),
		SteadyEvents: med(steady(func(s *SteadyReport) float64 { return float64(s.Events) })),
		WriteRate:    med(func(r Result) (float64, bool) { return r.WriteRate, r.Steady != nil && r.Steady.Events > 0 }),
		SlopePer1k: med(func(r Result) (float64, bool) {
			s, ok := CPUSlope(r)
			return s * 1000, ok
		}),
		QuietCPUms: med(func(r Result) (float64, bool) {
			if r.Quiet == nil || r.Quiet.Seconds <= 0 {
				return 0, false
			}
			return r.Quiet.CPUSeconds / r.Quiet.Seconds * 1000, true
		}),
		QuietWakeups: med(func(r Result) (float64, bool) {
			if r.Quiet == nil || r.Quiet.Seconds <= 0 {
				return 0, false
			}
			return float64(r.Quiet.Wakeups) / r.Quiet.Seconds, true
		}),
		HWMSteadyMiB: med(steady(func(s *SteadyReport) float64 { return float64(s.HWMBytes) / MiB })),
		LiveHeapMiB:  med(steady(func(s *SteadyReport) float64 { return float64(s.LiveHeapBytes) / MiB })),
		Requests:     most(func(s *SteadyReport) float64 { return float64(s.Requests) }),
		Restarts:     most(func(s *SteadyReport) float64 { return float64(s.Restarts) }),
		Reasons:      strings.Join(reasonList, "; "),
		SlowCalls:    med(steady(func(s *SteadyReport) float64 { return float64(s.SlowCalls) })),
		SlowCallMs: med(func(r Result) (float64, bool) {
			if r.Steady == nil || r.Steady.SlowCalls == 0 {
				return 0, false
			}
			return r.Steady.SlowBusySeconds / float64(r.Steady.SlowCalls) * 1000, true
		}),
		SlowPending:  med(steady(func(s *SteadyReport) float64 { return float64(s.SlowPending) })),
		SlowMaxDepth: most(func(s *SteadyReport) float64 { return float64(s.SlowMaxDepth) }),
		Pool:         med(func(r Result) (float64, bool) { return float64(r.Pool), r.Steady != nil && r.Steady.Events > 0 }),
		Notes:        strings.Join(noteList, "; "),
	}
}

// addNew appends s to list unless it is empty or already there.
func addNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Find returns the summary of name, or one of NaNs when it did not run.
func Find(ss []Summary, name string) Summary {
	for _, s := range ss {
		if s.Contender == name {
			return s
		}
	}
	nan := math.NaN()
	return Summary{Contender: name, SyncSeconds: nan, SyncMin: nan, SyncMax: nan, HWMSyncMiB: nan, IdleMiB: nan, AnonMiB: nan, hwmExitMiB: nan, AllocMiB: nan, ReadMiB: nan, StoreMiB: nan,
		ServerCPU: nan, ServerMiB: nan,
		Objects: nan, CPUPer1k: nan, LagP50ms: nan, LagP99ms: nan, SteadyEvents: nan, WriteRate: nan,
		SlopePer1k: nan, QuietCPUms: nan, QuietWakeups: nan,
		HWMSteadyMiB: nan, LiveHeapMiB: nan, Requests: nan, Restarts: nan, SlowCalls: nan, SlowCallMs: nan, SlowPending: nan, SlowMaxDepth: nan, Pool: nan}
}
