package driver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Threads is what each thread of a process ran and slept so far, by
// thread id, read from outside the process (/proc/<pid>/task/*), so that
// measuring it wakes none of its threads.
type Threads map[int]ThreadStat

// ThreadStat is one thread's CPU time, as the scheduler counts it
// (schedstat's first field, in nanoseconds), and its voluntary context
// switches (status's voluntary_ctxt_switches): each a sleep, so each a
// wake-up before the next.
type ThreadStat struct {
	CPU     time.Duration
	Wakeups int64
}

// ReadThreads reads every thread of pid; a thread that exits meanwhile is
// left out.
func ReadThreads(pid int) (Threads, error) {
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/[0-9]*", pid))
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("/proc/%d/task: no thread of pid %d", pid, pid)
	}
	out := Threads{}
	for _, d := range dirs {
		tid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		sched, err1 := os.ReadFile(d + "/schedstat")
		status, err2 := os.ReadFile(d + "/status")
		if err := errors.Join(err1, err2); err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
				continue // the thread exited meanwhile
			}
			return nil, err
		}
		cpu, err := parseSchedstat(string(sched))
		if err != nil {
			return nil, fmt.Errorf("%s/schedstat: %w", d, err)
		}
		w, err := parseVoluntary(string(status))
		if err != nil {
			return nil, fmt.Errorf("%s/status: %w", d, err)
		}
		out[tid] = ThreadStat{CPU: cpu, Wakeups: w}
	}
	return out, nil
}

// parseVoluntary reads the voluntary_ctxt_switches line of a status file.
func parseVoluntary(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
			return strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
		}
	}
	return 0, errors.New("no voluntary_ctxt_switches line")
}

// Since returns what t's threads ran and slept since before (a thread
// started since counts from zero), the total and the most any one thread
// woke.
func (t Threads) Since(before Threads) (total ThreadStat, busiest int64) {
	for tid, s := range t {
		b := before[tid]
		d := ThreadStat{CPU: s.CPU - b.CPU, Wakeups: s.Wakeups - b.Wakeups}
		total.CPU += d.CPU
		total.Wakeups += d.Wakeups
		busiest = max(busiest, d.Wakeups)
	}
	return total, busiest
}
