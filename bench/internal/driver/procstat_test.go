package driver

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	goruntime "runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseStatusBytes(t *testing.T) {
	status := "Name:\tbench\nVmPeak:\t 1300000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n"
	for _, tc := range []struct {
		status, field string
		want          int64 // -1: an error
	}{
		{status, "VmHWM", 123456 << 10},
		{status, "VmRSS", 100000 << 10},
		{status, "VmSwap", -1},
		{"VmHWM:\t 12 MB\n", "VmHWM", -1},
		{"VmHWM:\t x kB\n", "VmHWM", -1},
		{"VmHWM:\n", "VmHWM", -1},
	} {
		got, err := parseStatusBytes(strings.NewReader(tc.status), tc.field)
		if tc.want < 0 && err == nil || tc.want >= 0 && (err != nil || got != tc.want) {
			t.Errorf("parseStatusBytes(%q, %s) = %d, %v; want %d", tc.status, tc.field, got, err, tc.want)
		}
	}
}

func TestVmHWMOfSelf(t *testing.T) {
	got, err := VmHWM()
	if err != nil || got <= 0 {
		t.Errorf("vmHWM() = %d, %v", got, err)
	}
	if rss, err := StatusBytes(strconv.Itoa(os.Getpid()), "VmRSS"); err != nil || rss <= 0 {
		t.Errorf("VmRSS of self = %d, %v", rss, err)
	}
	if err := ResetHWM(os.Getpid()); err != nil {
		t.Errorf("resetHWM(self): %v", err)
	}
	if CPUTime() <= 0 {
		t.Errorf("cpuTime() is not positive")
	}
}

// touchEnv makes the test binary a child that touches 64 MiB, says so,
// frees them when told, says so, and waits for its stdin to close.
const touchEnv = "DRIVER_TEST_TOUCH"

// An AnonSampler keeps the child's largest RssAnon, not its last: the
// child touches 64 MiB, the sampler sees them, the child gives them back
// to the kernel, and Stop still says 64 MiB or more, while the child's
// RssAnon is below.
func TestAnonSamplerKeepsThePeak(t *testing.T) {
	if os.Getenv(touchEnv) != "" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = 1
		}
		fmt.Println("touched")
		in := bufio.NewScanner(os.Stdin)
		in.Scan()
		b = nil
		debug.FreeOSMemory()
		fmt.Println("freed")
		in.Scan()
		return
	}
	t.Setenv(touchEnv, "1")
	ch, err := StartProcess(os.Args[0], Contender{Name: "touch"}, []string{"-test.run=^TestAnonSamplerKeepsThePeak$"})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Kill()
	s := SampleAnon(ch.Pid())
	ctx := context.Background()
	if _, err := ch.ExpectLine(ctx, regexp.MustCompile(`^touched$`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := PollUntil(ctx, time.Minute, func() bool { return s.peak.Load() >= 64<<20 }); err != nil {
		t.Fatalf("the sampler never saw the 64 MiB: %d B (%v)", s.peak.Load(), err)
	}
	if err := ch.Send("free"); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.ExpectLine(ctx, regexp.MustCompile(`^freed$`), time.Minute); err != nil {
		t.Fatal(err)
	}
	now, err := StatusBytes(strconv.Itoa(ch.Pid()), "RssAnon")
	if err != nil {
		t.Fatal(err)
	}
	if peak := s.Stop(); peak < 64<<20 || now >= 32<<20 {
		t.Errorf("peak RssAnon %d MiB, now %d MiB; want 64 MiB or more, then less than 32", peak>>20, now>>20)
	}
}

func TestParseSchedstat(t *testing.T) {
	if d, err := parseSchedstat("1072959 1876287 16\n"); err != nil || d != 1072959*time.Nanosecond {
		t.Errorf("parseSchedstat = %v, %v", d, err)
	}
	for _, bad := range []string{"", "1 2", "x 2 3", "-1 2 3", "1 2 3 4"} {
		if _, err := parseSchedstat(bad); err == nil {
			t.Errorf("parseSchedstat(%q) gave no error", bad)
		}
	}
}

// ThreadCPU counts what the threads of a process ran: a spin of 30 ms of
// CPU (as getrusage counts it) on another thread shows in full.
func TestThreadCPUOfSelf(t *testing.T) {
	before, err := ThreadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		goruntime.LockOSThread() // a thread of its own, which lives on after
		defer goruntime.UnlockOSThread()
		for c0 := CPUTime(); CPUTime()-c0 < 30*time.Millisecond; {
		}
		close(done)
	}()
	<-done
	after, err := ThreadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := after - before; d < 29*time.Millisecond || d > 10*time.Second {
		t.Errorf("ThreadCPU grew by %v over a spin of 30 ms of CPU", d)
	}
	if _, err := ThreadCPU(1 << 30); err == nil {
		t.Error("ThreadCPU of no process: no error")
	}
}

// parseVoluntary reads the wake-ups of a /proc/<pid>/task/<tid>/status.
func TestParseVoluntary(t *testing.T) {
	n, err := parseVoluntary("Name:\tours\nvoluntary_ctxt_switches:\t1463\nnonvoluntary_ctxt_switches:\t12\n")
	if err != nil || n != 1463 {
		t.Fatalf("parseVoluntary = %d, %v; want 1463", n, err)
	}
	if _, err := parseVoluntary("Name:\tours\n"); err == nil {
		t.Fatal("parseVoluntary of a status without the line: no error")
	}
}

// Threads.Since counts a thread started since the first reading from zero
// and names the most any one thread woke.
func TestThreadsSince(t *testing.T) {
	before := Threads{1: {CPU: 10, Wakeups: 5}, 2: {CPU: 3, Wakeups: 1}}
	after := Threads{1: {CPU: 15, Wakeups: 9}, 2: {CPU: 3, Wakeups: 1}, 3: {CPU: 2, Wakeups: 2}}
	total, busiest := after.Since(before)
	if total != (ThreadStat{CPU: 7, Wakeups: 6}) || busiest != 4 {
		t.Fatalf("Since = %+v, busiest %d; want {CPU:7 Wakeups:6}, busiest 4", total, busiest)
	}
}

// ReadThreads reads this process's threads, and a wake-up of one of them
// shows.
func TestReadThreadsSelf(t *testing.T) {
	before, err := ReadThreads(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a sleep to be counted, not a synchronisation
	after, err := ReadThreads(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if total, _ := after.Since(before); total.Wakeups < 1 {
		t.Fatalf("no wake-up counted across a sleep: %+v", total)
	}
}
