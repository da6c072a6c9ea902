package main

import (
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// slowDelay is what the slow handler of the *-slow-handler contenders
// spends on each call during the steady state.
const slowDelay = time.Millisecond

// slowHandler is the extra handler of the slow-handler contenders. It is
// fast until the steady state starts (so that time to synced compares with
// the same contender without it), then sleeps slowDelay on every call and
// counts its calls.
type slowHandler struct {
	on    atomic.Bool
	calls atomic.Int64
	busy  atomic.Int64 // nanoseconds spent in calls: a sleep lasts longer than asked
	// pending returns the calls waiting for the handler, where the
	// contender can tell (our Registration.Pending).
	pending func() int
}

// call is what the handler does for any event.
func (h *slowHandler) call() {
	if !h.on.Load() {
		return
	}
	h.calls.Add(1)
	t := time.Now()
	time.Sleep(slowDelay)
	h.busy.Add(int64(time.Since(t)))
}

// start makes the handler slow.
func (h *slowHandler) start() {
	if h != nil {
		h.on.Store(true)
	}
}

// steadyReport sums up the steady state once the lag handler had every
// update: its lags, the CPU used, memory, restarts and the slow handler.
func (e *childEnv) steadyReport(lags []time.Duration, cpu time.Duration) (driver.SteadyReport, error) {
	p50, p99 := driver.LagPercentiles(lags)
	r := driver.SteadyReport{Events: len(lags), CPUSeconds: cpu.Seconds(),
		LagP50Seconds: p50.Seconds(), LagP99Seconds: p99.Seconds(),
		Requests: int(e.probe.requests.Load()), SlowMaxDepth: int(e.probe.maxDepth.Load())}
	r.Restarts, r.RestartReasons = e.probe.restarts()
	if e.slow != nil {
		r.SlowCalls = e.slow.calls.Load()
		r.SlowBusySeconds = time.Duration(e.slow.busy.Load()).Seconds()
		if e.slow.pending != nil {
			r.SlowPending = e.slow.pending()
		} else {
			r.SlowPending = len(lags) - int(r.SlowCalls)
		}
	}
	var err error
	if r.HWMBytes, err = driver.VmHWM(); err != nil {
		return r, err
	}
	goruntime.GC()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	r.LiveHeapBytes = ms.HeapAlloc
	return r, nil
}
