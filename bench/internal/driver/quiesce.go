package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Before each run the benchmark waits for etcd and kube-apiserver to be
// idle, so that a contender does not pay for the work the previous one left
// the server doing (the garbage of a 20,000-object LIST, a steady state's
// writes being compacted).

const (
	quiesceWindow  = 250 * time.Millisecond
	quiesceShare   = 0.05 // of one CPU, over a window
	quiesceTimeout = 15 * time.Second
	clockTicks     = 100 // USER_HZ, the unit of /proc/<pid>/stat times on Linux
)

// procStat is what the benchmark reads of /proc/<pid>/stat.
type procStat struct {
	comm string
	ppid int
	cpu  time.Duration // user + system
}

// parseProcStat parses a /proc/<pid>/stat line. The command name is in
// parentheses and may itself hold spaces and parentheses.
func parseProcStat(line string) (procStat, error) {
	open, close := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || close < open {
		return procStat{}, fmt.Errorf("stat line %q: no (comm)", truncate(line, 80))
	}
	f := strings.Fields(line[close+1:])
	// f[0] is field 3 (state); ppid is field 4, utime 14, stime 15.
	if len(f) < 13 {
		return procStat{}, fmt.Errorf("stat line %q: %d fields after comm", truncate(line, 80), len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	utime, err2 := strconv.ParseInt(f[11], 10, 64)
	stime, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, fmt.Errorf("stat line %q: bad numbers", truncate(line, 80))
	}
	return procStat{comm: line[open+1 : close], ppid: ppid,
		cpu: time.Duration(utime+stime) * time.Second / clockTicks}, nil
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

// ServerPIDs returns the pids of this process's children named etcd or
// kube-apiserver, the test bed it started, and that of kube-apiserver.
func ServerPIDs() (pids []int, apiserver int) {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err == nil && st.ppid == os.Getpid() && (st.comm == "etcd" || st.comm == "kube-apiserver") {
			pids = append(pids, pid)
			if st.comm == "kube-apiserver" {
				apiserver = pid
			}
		}
	}
	return pids, apiserver
}

// CPUOf returns the CPU time used so far by pids together.
func CPUOf(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		if st, err := readProcStat(pid); err == nil {
			total += st.cpu
		}
	}
	return total
}

// Quiesce waits until pids together use under quiesceShare of a CPU over a
// window, or until quiesceTimeout passes; it tells how long it waited and
// whether the servers went idle.
func Quiesce(ctx context.Context, pids []int) (time.Duration, bool, error) {
	started := time.Now()
	if len(pids) == 0 {
		return 0, false, nil
	}
	deadline := time.NewTimer(quiesceTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(quiesceWindow)
	defer tick.Stop()
	last := CPUOf(pids)
	for {
		select {
		case <-ctx.Done():
			return time.Since(started), false, ctx.Err()
		case <-deadline.C:
			return time.Since(started), false, nil
		case <-tick.C:
			now := CPUOf(pids)
			if float64(now-last) < quiesceShare*float64(quiesceWindow) {
				return time.Since(started), true, nil
			}
			last = now
		}
	}
}
