package child

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// quiet measures what the synced child costs with no event (arg: "<settle>
// <window>", two durations): it lets settle pass, so that what the sync
// left (its garbage, a last write) is done, then counts its CPU time and
// wake-ups over window, its CPU profile as "quiet".
func quiet(ctx context.Context, arg string, prof *driver.Profiler) (driver.QuietReport, error) {
	settleArg, windowArg, _ := strings.Cut(arg, " ")
	settle, err1 := time.ParseDuration(settleArg)
	window, err2 := time.ParseDuration(windowArg)
	if err1 != nil || err2 != nil || window <= 0 {
		return driver.QuietReport{}, fmt.Errorf("quiet %q: want two durations, settle and window", arg)
	}
	if err := wait(ctx, settle); err != nil {
		return driver.QuietReport{}, err
	}
	if err := prof.StartCPU("quiet"); err != nil {
		return driver.QuietReport{}, err
	}
	cpu0, wake0, start := driver.CPUTime(), driver.Wakeups(), time.Now()
	err := wait(ctx, window)
	rep := driver.QuietReport{CPUSeconds: (driver.CPUTime() - cpu0).Seconds(), Wakeups: driver.Wakeups() - wake0,
		Seconds: time.Since(start).Seconds()}
	prof.StopCPU()
	return rep, err
}

// wait waits d, or less if ctx ends.
func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
