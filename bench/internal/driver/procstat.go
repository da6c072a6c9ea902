package driver

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// VmHWM returns the process's peak resident set size in bytes.
func VmHWM() (int64, error) { return StatusBytes("self", "VmHWM") }

// StatusBytes reads a memory field (VmHWM, VmRSS) of /proc/<pid>/status.
func StatusBytes(pid, field string) (int64, error) {
	f, err := os.Open("/proc/" + pid + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseStatusBytes(f, field)
}

// parseStatusBytes reads the "<field>: <n> kB" line of a /proc/<pid>/status
// file, in bytes.
func parseStatusBytes(r io.Reader, field string) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), field+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s line %q: want <number> kB", field, sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s line %q: %w", field, sc.Text(), err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s line", field)
}

// AnonSampler follows the largest RssAnon of a process: its resident
// memory that is not file pages (the heap, stacks, the runtime's own, the
// binary's written data), apart from the binary's code and read-only data,
// which RssFile counts. The kernel keeps no peak of it, as VmHWM is of the
// whole RSS: the sampler reads /proc/<pid>/status every AnonPeriod.
type AnonSampler struct {
	pid  string
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

// AnonPeriod is how often an AnonSampler reads: a Go program's anonymous
// memory grows with its heap, which the garbage collector returns to the
// kernel only minutes later, so that its peak lasts far longer than this.
const AnonPeriod = 5 * time.Millisecond

// SampleAnon starts following pid's RssAnon.
func SampleAnon(pid int) *AnonSampler {
	s := &AnonSampler{pid: strconv.Itoa(pid), stop: make(chan struct{}), done: make(chan struct{})}
	s.read()
	go func() {
		defer close(s.done)
		t := time.NewTicker(AnonPeriod)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
				s.read()
			}
		}
	}()
	return s
}

func (s *AnonSampler) read() {
	if b, err := StatusBytes(s.pid, "RssAnon"); err == nil && b > s.peak.Load() {
		s.peak.Store(b)
	}
}

// Stop reads once more, stops sampling and returns the largest RssAnon
// seen, in bytes; 0 when the process could not be read.
func (s *AnonSampler) Stop() int64 {
	close(s.stop)
	<-s.done
	s.read()
	return s.peak.Load()
}

// ResetHWM sets the peak resident set size of pid (VmHWM) to its current
// one, so that VmHWM read later is the peak since now.
func ResetHWM(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// CPUTime returns the user and system CPU time the process used so far.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Wakeups returns the voluntary context switches of the process so far,
// every thread's (getrusage's ru_nvcsw): a thread that sleeps and is woken
// counts one.
func Wakeups() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Nvcsw
}

// ThreadCPU returns the CPU time pid's threads ran so far, in nanoseconds
// as the scheduler counts it: the sum of the first field of each
// /proc/<pid>/task/<tid>/schedstat. utime+stime of /proc/<pid>/stat
// (CPUOf) count in clock ticks of 10 ms, too coarse for a sync that costs
// the server tens of milliseconds; what a thread that exited ran is lost
// here (a Go program's threads rarely exit), so measure spans, not lives.
func ThreadCPU(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*/schedstat", pid))
	if err != nil {
		return 0, err
	}
	if len(tasks) == 0 {
		return 0, fmt.Errorf("/proc/%d/task/*/schedstat: no thread of pid %d", pid, pid)
	}
	var total time.Duration
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			continue // the thread exited meanwhile
		}
		if err != nil {
			return 0, err
		}
		ns, err := parseSchedstat(string(b))
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p, err)
		}
		total += ns
	}
	return total, nil
}

// parseSchedstat reads the run time of a schedstat line: "<ns on CPU>
// <ns waiting> <timeslices>".
func parseSchedstat(line string) (time.Duration, error) {
	f := strings.Fields(line)
	if len(f) != 3 {
		return 0, fmt.Errorf("schedstat %q: want 3 fields", truncate(line, 80))
	}
	ns, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("schedstat %q: bad run time", truncate(line, 80))
	}
	return time.Duration(ns), nil
}
