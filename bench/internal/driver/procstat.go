package driver

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
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
