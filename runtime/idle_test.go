package runtime_test

import (
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// What a synced syncer costs when nothing happens: ConfigMaps of 2 KB
// (250, a node agent's share; 20,000, the benchmark's), synced through a
// WatchList served from memory (internal/eventpath) that then sends
// nothing, against the same test process with no syncer. Each iteration
// is one idle second, so run it with -benchtime=Nx for N seconds, e.g.
//
//	go test -run XXX -bench BenchmarkIdle -benchtime 20x ./runtime/
//
// cpu-us/s is the process's CPU time (user and system) per idle second;
// wakeups/s its voluntary context switches per second (getrusage's
// ru_nvcsw, over all its threads): each is a thread that went to sleep,
// so each is a wake-up before it. The benchmark's own goroutine sleeps
// once per iteration: 1/s of what "nothing" shows is its own.
func BenchmarkIdle(b *testing.B) {
	b.Run("nothing", func(b *testing.B) { idle(b) })
	for _, n := range []int{250, 20000} {
		b.Run(fmt.Sprintf("typed-configmap-%d", n), func(b *testing.B) {
			typedFeed(b, n)
			idle(b)
		})
	}
	// The mechanisms a program turns on, each at a period of 1s (their
	// defaults are minutes or hours): what one period costs idle is the
	// figure less the default's, times the seconds of a period.
	for _, m := range []struct {
		name string
		opts func(b *testing.B) []runtime.Option
	}{
		{"snapshot", func(b *testing.B) []runtime.Option {
			return []runtime.Option{runtime.WithSnapshot(filepath.Join(b.TempDir(), "snap")), runtime.WithSnapshotInterval(time.Second)}
		}},
		{"resync", func(*testing.B) []runtime.Option { return []runtime.Option{runtime.WithResyncPeriod(time.Second)} }},
	} {
		b.Run("typed-configmap-20000-"+m.name+"-every-1s", func(b *testing.B) {
			typedFeed(b, 20000, m.opts(b)...)
			idle(b)
		})
	}
}

func idle(b *testing.B) {
	goruntime.GC() // the sync's garbage collected before, not during
	time.Sleep(time.Second)
	cpu0, sw0 := usage()
	start := time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	cpu1, sw1 := usage()
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(cpu1-cpu0)/1e3/secs, "cpu-us/s")
	b.ReportMetric(float64(sw1-sw0)/secs, "wakeups/s")
	b.ReportMetric(0, "ns/op")
}

// usage is the process's CPU time, in nanoseconds, and its voluntary
// context switches.
func usage() (cpu, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), ru.Nvcsw
}
