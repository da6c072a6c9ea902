package child

import (
	goruntime "runtime"
	"sync/atomic"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// SlowDelay is what the slow handler of the *-slow-handler contenders
// spends on each call during the steady state.
const SlowDelay = time.Millisecond

// SlowHandler is the extra handler of the slow-handler contenders. It is
// fast until the steady state starts (so that time to synced compares with
// the same contender without it), then sleeps SlowDelay on every call and
// counts its calls.
type SlowHandler struct {
	on    atomic.Bool
	calls atomic.Int64
	busy  atomic.Int64 // nanoseconds spent in calls: a sleep lasts longer than asked
	// Pending returns the calls waiting for the handler, where the
	// contender can tell (our Registration.Pending).
	Pending func() int
}

// Call is what the handler does for any event.
func (h *SlowHandler) Call() {
	if !h.on.Load() {
		return
	}
	h.calls.Add(1)
	t := time.Now()
	time.Sleep(SlowDelay)
	h.busy.Add(int64(time.Since(t)))
}

// start makes the handler slow.
func (h *SlowHandler) start() {
	if h != nil {
		h.on.Store(true)
	}
}

// steadyReport sums up the steady state once the lag handler had every
// update: its lags, the CPU used, memory, restarts and the slow handler.
func (e *Env) steadyReport(lags []time.Duration, cpu time.Duration) (driver.SteadyReport, error) {
	p50, p99 := driver.LagPercentiles(lags)
	r := driver.SteadyReport{Events: len(lags), CPUSeconds: cpu.Seconds(),
		LagP50Seconds: p50.Seconds(), LagP99Seconds: p99.Seconds(),
		Requests: int(e.Probe.requests.Load()), SlowMaxDepth: int(e.Probe.maxDepth.Load())}
	r.Restarts, r.RestartReasons = e.Probe.restarts()
	if e.Slow != nil {
		r.SlowCalls = e.Slow.calls.Load()
		r.SlowBusySeconds = time.Duration(e.Slow.busy.Load()).Seconds()
		if e.Slow.Pending != nil {
			r.SlowPending = e.Slow.Pending()
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
