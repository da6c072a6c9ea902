package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// bench holds what every run needs.
type bench struct {
	o          options
	bins       map[string]string // the programs' binaries, by name (programs.go)
	kubeconfig string
	cs         kubernetes.Interface
	res        resource
	cfg        *rest.Config // the server's, for the parent's own clients
	srv        *testbed.Server
	servers    []int       // pids of etcd and kube-apiserver
	apiserver  int         // pid of kube-apiserver; 0 when not found
	dir        string      // the run's temporary folder
	pop        *population // the objects that exist, changed by churn
	// measureServer: runOne also measures what kube-apiserver pays for each
	// run (driver.Result.Server), from the child's start of work to synced.
	measureServer bool
}

// replyTimeout bounds the child's answers that need no work.
const replyTimeout = 30 * time.Second

// runOne runs contender c once as a child process with extra child flags:
// sync, the steady state for contenders that have one, exit. The child is
// killed on every path.
func (b *bench) runOne(ctx context.Context, c driver.Contender, round int, extra ...string) (driver.Result, error) {
	r := driver.Result{Contender: c.Name, Round: round, Pool: min(b.o.steadyPool, b.o.n)}
	if b.measureServer {
		extra = append([]string{"-barrier"}, extra...)
	}
	if c.Name == oursSnapshot {
		extra = append(extra, "-snapshot="+filepath.Join(b.dir, fmt.Sprintf("%s.r%d.snapshot", c.Name, round)))
	}
	ch, err := b.startChild(c, b.o, round, extra...)
	if err != nil {
		return r, err
	}
	defer ch.Kill()
	anon := driver.SampleAnon(ch.Pid())
	var measured func() (*driver.ServerCost, error)
	if b.measureServer {
		if measured, err = b.startServerCost(ctx, ch); err != nil {
			anon.Stop()
			return r, err
		}
	}
	err = ch.Expect(ctx, driver.MsgSynced, &r.Sync, b.o.timeout+replyTimeout)
	if err == nil && measured != nil {
		r.Server, err = measured()
	}
	r.AnonBytes = anon.Stop()
	if err != nil {
		return r, err
	}
	if r.Sync.Objects != b.o.n {
		return r, fmt.Errorf("%s saw %d objects, want %d", c.Name, r.Sync.Objects, b.o.n)
	}
	if c.Quiet && round > 0 && b.o.quiet > 0 {
		if r.Quiet, err = b.quiet(ctx, ch.Pid(), b.quietWindow(c.Name)); err != nil {
			return r, err
		}
	}
	if c.Steady && round > 0 {
		cpu0, err := b.serverCPU(r.Server)
		if err != nil {
			return r, err
		}
		if r.Steady, r.WriteRate, err = b.steady(ctx, ch, b.o); err != nil {
			return r, err
		}
		if r.Server != nil {
			cpu1, err := b.serverCPU(r.Server)
			if err != nil {
				return r, err
			}
			r.Server.SteadyCPU = cpu1 - cpu0
		}
	}
	if c.Slope && round > 0 {
		if r.Slope, err = b.slope(ctx, ch); err != nil {
			return r, err
		}
	}
	if err := ch.Send(driver.CmdExit); err != nil {
		return r, err
	}
	if err := ch.Expect(ctx, driver.MsgExit, &r.Exit, replyTimeout); err != nil {
		return r, err
	}
	return r, ch.Wait(replyTimeout)
}

// startServerCost starts the work of a child started with -barrier once it
// is ready, and returns what measures kube-apiserver's cost since, to be
// called once the child synced: its CPU time (driver.ThreadCPU: to the
// nanosecond, where /proc/<pid>/stat counts in 10 ms ticks) and the bytes
// it allocated.
func (b *bench) startServerCost(ctx context.Context, ch *driver.Child) (func() (*driver.ServerCost, error), error) {
	if b.apiserver == 0 {
		return nil, fmt.Errorf("kube-apiserver's process not found: its cost cannot be measured")
	}
	if err := ch.Expect(ctx, driver.MsgReady, &struct{}{}, replyTimeout); err != nil {
		return nil, err
	}
	g0, err := b.apiserverMetric(ctx, goroutinesMetric) // read first: its scrape is not the run's allocation
	if err != nil {
		return nil, err
	}
	alloc0, err := b.apiserverAllocated(ctx)
	if err != nil {
		return nil, err
	}
	cpu0, err := driver.ThreadCPU(b.apiserver)
	if err != nil {
		return nil, err
	}
	if err := ch.Send(driver.CmdGo); err != nil {
		return nil, err
	}
	return func() (*driver.ServerCost, error) {
		cpu1, err := driver.ThreadCPU(b.apiserver)
		if err != nil {
			return nil, err
		}
		alloc1, err := b.apiserverAllocated(ctx)
		if err != nil {
			return nil, err
		}
		g1, err := b.apiserverMetric(ctx, goroutinesMetric)
		if err != nil {
			return nil, err
		}
		rss, err := driver.StatusBytes(strconv.Itoa(b.apiserver), "VmRSS")
		if err != nil {
			return nil, err
		}
		return &driver.ServerCost{CPU: cpu1 - cpu0, AllocatedBytes: alloc1 - alloc0, Goroutines: g1 - g0, RSSBytes: rss}, nil
	}, nil
}

// goroutinesMetric is the Go runtime's count of a process's goroutines.
const goroutinesMetric = "go_goroutines"

// serverCPU returns kube-apiserver's CPU time so far when its cost is
// measured (sc not nil), else 0.
func (b *bench) serverCPU(sc *driver.ServerCost) (time.Duration, error) {
	if sc == nil {
		return 0, nil
	}
	return driver.ThreadCPU(b.apiserver)
}

// idleNamespace is a namespace of no objects, which the idle runs sync.
const idleNamespace = "bench-idle"

// runIdle runs contender c once on idleNamespace: what its program takes
// before any object, which its peak RSS at sync holds too.
func (b *bench) runIdle(ctx context.Context, c driver.Contender) (driver.Result, error) {
	ib := *b
	ib.o.namespace, ib.o.n = idleNamespace, 0
	r, err := ib.runOne(ctx, c, 0)
	r.Idle = true
	return r, err
}

// steady drives the steady state of a child, at o's rate and for o's
// duration; it also returns the rate at which the updates were written.
func (b *bench) steady(ctx context.Context, ch *driver.Child, o options) (*driver.SteadyReport, float64, error) {
	if err := ch.Send(driver.CmdSteady); err != nil {
		return nil, 0, err
	}
	if err := ch.Expect(ctx, driver.MsgReady, &struct{}{}, replyTimeout); err != nil {
		return nil, 0, err
	}
	n, took, err := writeUpdates(ctx, b.cs, o, b.res)
	if err != nil {
		return nil, 0, err
	}
	rate := float64(n) / took.Seconds()
	if rate < 0.9*float64(o.rate) {
		fmt.Fprintf(os.Stderr, "warning: steady state wrote %d updates in %s (%.0f/s), under 90%% of the asked %d/s: the machine is busy\n",
			n, took.Round(time.Millisecond), rate, o.rate)
	}
	if err := ch.Send(fmt.Sprintf("%s %d", driver.CmdEnd, n)); err != nil {
		return nil, 0, err
	}
	var s driver.SteadyReport
	if err := ch.Expect(ctx, driver.MsgSteady, &s, b.o.timeout+replyTimeout); err != nil {
		return nil, 0, err
	}
	return &s, rate, nil
}

// protobufConfig returns cfg speaking protobuf, as every contender does.
func protobufConfig(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = kruntime.ContentTypeProtobuf
	c.AcceptContentTypes = kruntime.ContentTypeProtobuf + "," + kruntime.ContentTypeJSON
	return c
}
