package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"testing"
	"time"
)

// silentEnv makes the test binary a silent process (TestSilentProcess):
// what a synced contender is when nothing happens.
const silentEnv = "BENCH_TEST_SILENT_PROCESS"

// TestIdleMeasurementCountsOnlyTheProcess covers issue 44's idle figures,
// which the child measured itself: its own settle and window timers, and
// the getrusage around them, woke its threads, and a 2 s settle cut into
// what the sync left (the collector and the scavenger), so that a synced
// process with nothing to do showed 3-7 wake-ups a second. A process that
// allocated, as a sync does, then waits on its stdin with nothing to do,
// measured from outside (bench.quiet), must show no wake-up at all.
func TestIdleMeasurementCountsOnlyTheProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for an idle window")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSilentProcess$")
	cmd.Env = append(os.Environ(), silentEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the silent process: %v", err)
		}
	}()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "synced" {
		t.Fatalf("the silent process said %q (%v), want synced", sc.Text(), sc.Err())
	}
	b := &bench{o: options{quiet: 2 * time.Second, quietSettle: 20 * time.Second}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := b.quiet(ctx, cmd.Process.Pid, b.o.quiet)
	if err != nil {
		t.Fatal(err)
	}
	if q.Wakeups != 0 || q.SettleSeconds >= 20 {
		t.Errorf("a silent process measured idle: %s; want no wake-up, and a settle under -quiet-settle", describeQuiet(q))
	}
	t.Logf("%s", describeQuiet(q))
}

// TestSilentProcess is the process of TestIdleMeasurementCountsOnlyTheProcess
// when run with silentEnv set: it allocates and drops 200 MiB, says synced
// and waits for its stdin to close.
func TestSilentProcess(t *testing.T) {
	if os.Getenv(silentEnv) == "" {
		t.Skip("the process of TestIdleMeasurementCountsOnlyTheProcess")
	}
	var keep [][]byte
	for i := range 200 {
		b := make([]byte, 1<<20)
		b[0] = byte(i)
		if keep = append(keep, b); len(keep) > 16 {
			keep = keep[1:]
		}
	}
	fmt.Println("synced")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // EOF when the test ends
}

// Two processes that did not run at all in their windows cost the same,
// which Ratio's 0/0 (nan) would not say; one that ran against one that did
// not costs more than any target.
func TestIdleRatioOfSilentProcesses(t *testing.T) {
	for _, c := range []struct{ a, b, want float64 }{{0, 0, 1}, {0.2, 0.1, 2}, {0, 0.1, 0}, {0.1, 0, math.Inf(1)}} {
		if got := idleRatio(c.a, c.b); got != c.want {
			t.Errorf("idleRatio(%g, %g) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
	if got := idleRatio(math.NaN(), 0); !math.IsNaN(got) {
		t.Errorf("idleRatio(nan, 0) = %g, want nan: not measured", got)
	}
}
