package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// allocateEnv makes the test binary a child that touches allocateMiB MiB,
// says so, and waits to be killed.
const (
	allocateEnv = "DEMO_TEST_ALLOCATE"
	allocateMiB = 64
)

// The peak RSS read from a child's exit (ru_maxrss) is the VmHWM its
// /proc status showed while it ran, within a MiB: the child touches 64
// MiB, the test reads its VmHWM, then kills it and compares.
func TestPeakRSSIsVmHWM(t *testing.T) {
	if os.Getenv(allocateEnv) != "" {
		b := make([]byte, allocateMiB<<20)
		for i := range b {
			b[i] = byte(i)
		}
		fmt.Printf("touched %d bytes\n", len(b))
		time.Sleep(time.Minute) // killed long before
		fmt.Println(b[len(b)/2])
		return
	}
	t.Setenv(allocateEnv, "1")
	c, err := start("allocate", os.Args[0], []string{"-test.run=^TestPeakRSSIsVmHWM$"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer c.kill()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.expect(ctx, time.Minute, `^touched \d+ bytes$`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.peakRSS(); err == nil {
		t.Error("peakRSS of a running child: no error")
	}
	hwm := vmHWM(t, c.cmd.Process.Pid)
	c.kill()
	rss, err := c.peakRSS()
	if err != nil {
		t.Fatal(err)
	}
	// The two read the same high-water mark from per-CPU counters, which
	// may be a few pages apart.
	if d := max(rss-hwm, hwm-rss); rss < allocateMiB<<20 || d > 1<<20 {
		t.Errorf("peak RSS %d B; its VmHWM was %d B after touching %d MiB", rss, hwm, allocateMiB)
	}
}

// vmHWM reads the VmHWM line of /proc/pid/status, in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
