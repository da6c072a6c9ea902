package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// allocateEnv makes the test binary a child that touches as many MiB as
// the variable says (0: none), says so, and waits to be killed.
const allocateEnv = "DEMO_TEST_ALLOCATE_MIB"

// The peak RSS the demo shows is the child's own, not its parent's: the
// test holds 200 MiB, touched, while it starts a child that allocates
// nothing (whose ru_maxrss at exit would say about 200 MiB: os/exec starts
// it by vfork, and the kernel charges it the parent's resident set at the
// exec), then a child that touches 64 MiB. Each figure is the child's
// VmHWM, read while it runs; after it exited there is none to read.
func TestPeakRSSIsTheChilds(t *testing.T) {
	if v := os.Getenv(allocateEnv); v != "" {
		mib, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, mib<<20)
		for i := range b {
			b[i] = byte(i)
		}
		fmt.Printf("touched %d bytes\n", len(b))
		time.Sleep(time.Minute) // killed long before
		fmt.Println(b[len(b)/2:][:0])
		return
	}
	const parentMiB = 200
	held := make([]byte, parentMiB<<20)
	for i := range held {
		held[i] = byte(i)
	}
	if rss, err := statusBytes(os.Getpid(), "VmRSS"); err != nil || rss < parentMiB<<20 {
		t.Fatalf("the test's own RSS %d B (%v), want %d MiB or more", rss, err, parentMiB)
	}
	peak := func(mib int) (int64, *child) {
		t.Helper()
		t.Setenv(allocateEnv, strconv.Itoa(mib))
		c, err := start("allocate", os.Args[0], []string{"-test.run=^TestPeakRSSIsTheChilds$"}, io.Discard, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.kill)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := c.expect(ctx, time.Minute, `^touched \d+ bytes$`); err != nil {
			t.Fatal(err)
		}
		rss, err := c.peakRSS()
		if err != nil {
			t.Fatal(err)
		}
		return rss, c
	}
	// A Go test binary that allocates nothing holds a few MiB.
	if rss, _ := peak(0); rss > 40<<20 {
		t.Errorf("peak RSS of a child that allocates nothing: %d MiB, started by a parent holding %d MiB; want the child's few MiB", rss>>20, parentMiB)
	}
	rss, c := peak(64)
	if rss < 64<<20 || rss > (64+40)<<20 {
		t.Errorf("peak RSS of a child that touched 64 MiB: %d MiB", rss>>20)
	}
	c.kill()
	if _, err := c.peakRSS(); err == nil {
		t.Error("peakRSS of an exited child: no error")
	}
	runtime.KeepAlive(held)
}
