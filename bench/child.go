package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	"k8s.io/client-go/tools/clientcmd"
)

// childArgs are the flags of the hidden child subcommand.
type childArgs struct {
	contender  string
	resource   string
	namespace  string
	kubeconfig string
	want       int
	timeout    time.Duration
	profileDir string
	tag        string
	// barrier: say ready once set up and start work only when told go,
	// so that the parent can start several children at once.
	barrier bool
	// snapshot: our syncer keeps its snapshot in this file (WithSnapshot).
	snapshot string
	// shard: "i/n", our syncer syncs shard i of n.
	shard string
	// digest: report a digest of the store's names and resourceVersions.
	digest bool
	// fieldSelector: sync only the objects it selects (a node agent's
	// spec.nodeName=<node>).
	fieldSelector string
	// fleet: be the replica of this identity in the fleet fleetName (the
	// fleet part), not a contender.
	fleet, fleetName string
}

func parseChildArgs(args []string) (childArgs, error) {
	var a childArgs
	fs := flag.NewFlagSet(childCommand, flag.ContinueOnError)
	fs.StringVar(&a.contender, "contender", "", "contender to run")
	fs.StringVar(&a.resource, "resource", "", "resource")
	fs.StringVar(&a.namespace, "namespace", "", "namespace")
	fs.StringVar(&a.kubeconfig, "kubeconfig", "", "kubeconfig")
	fs.IntVar(&a.want, "want", 0, "objects expected")
	fs.DurationVar(&a.timeout, "timeout", 5*time.Minute, "longest wait for sync and for the steady state's updates")
	fs.StringVar(&a.profileDir, "profile", "", "folder for pprof profiles")
	fs.StringVar(&a.tag, "tag", "", "profile file name prefix")
	fs.BoolVar(&a.barrier, "barrier", false, "say ready, then wait for go before starting work")
	fs.StringVar(&a.snapshot, "snapshot", "", "our syncer's snapshot file (runtime.WithSnapshot)")
	fs.StringVar(&a.shard, "shard", "", "i/n: our syncer syncs shard i of n (runtime.WithShard); -want is then the whole resource's count")
	fs.BoolVar(&a.digest, "digest", false, "report a digest of the synced store's names and resourceVersions")
	fs.StringVar(&a.fieldSelector, "field-selector", "", "sync only the objects this field selector selects; -want is then their count")
	fs.StringVar(&a.fleet, "fleet", "", "be this replica of the fleet -fleet-name, syncing the shards it holds")
	fs.StringVar(&a.fleetName, "fleet-name", "", "the fleet's name")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if a.contender == "" || a.resource == "" || a.namespace == "" || a.kubeconfig == "" || a.want < 1 {
		return a, errors.New("-contender, -resource, -namespace, -kubeconfig and -want are required")
	}
	return a, nil
}

// childMain runs one contender, reports to the parent on stdout and
// follows its commands on stdin.
func childMain(args []string) error {
	a, err := parseChildArgs(args)
	if err != nil {
		return err
	}
	res, ok := lookupResource(a.resource)
	if !ok {
		return fmt.Errorf("unknown resource %q", a.resource)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", a.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	contender := runAs(a.contender, cfg)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if a.fleet != "" {
		return fleetMember(ctx, cfg, a)
	}
	prof := driver.NewProfiler(a.profileDir, a.tag)
	env := &childEnv{cfg: cfg, namespace: a.namespace, plural: res.plural, timeout: a.timeout,
		lags: newLagObserver(), probe: newProbe(res.plural), snapshot: a.snapshot, want: a.want, fieldSelector: a.fieldSelector}
	if a.shard != "" {
		if _, err := fmt.Sscanf(a.shard, "%d/%d", &env.shard, &env.shards); err != nil || env.shards < 1 {
			return fmt.Errorf("-shard %q: want i/n", a.shard)
		}
	}
	cfg.Wrap(env.probe.wrap)
	var wire atomic.Int64
	cfg.Dial = driver.CountingDial(&wire)
	if c, _ := contenderByName(contender); c.Slow {
		env.slow = &slowHandler{}
	}

	stdin := bufio.NewScanner(os.Stdin)
	if a.barrier {
		if err := driver.WriteMsg(os.Stdout, driver.MsgReady, struct{}{}); err != nil {
			return err
		}
		if !stdin.Scan() || stdin.Text() != driver.CmdGo {
			return fmt.Errorf("waited for %q, got %q (%v)", driver.CmdGo, stdin.Text(), stdin.Err())
		}
	}

	// Start of work: everything from here on is the contender's.
	if err := prof.StartCPU("sync"); err != nil {
		return err
	}
	started := time.Now()
	out, err := res.kind.run(ctx, contender, env)
	took := time.Since(started)
	read := wire.Load()
	hwm, hwmErr := driver.VmHWM()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	prof.StopCPU()
	if err != nil {
		return fmt.Errorf("%s: %w", a.contender, err)
	}
	if hwmErr != nil {
		return hwmErr
	}
	if out.objects != a.want && (a.shard == "" || out.objects > a.want) {
		return fmt.Errorf("%s: saw %d objects at sync, want %d", a.contender, out.objects, a.want)
	}
	if err := prof.WriteHeap("sync"); err != nil {
		return err
	}
	rep := driver.SyncReport{
		SyncSeconds: took.Seconds(), Objects: out.objects, HWMBytes: hwm,
		TotalAllocBytes: ms.TotalAlloc, NumGC: ms.NumGC, Note: out.note, BytesRead: read, StoreBytes: out.storeBytes,
	}
	if a.digest {
		if out.keys == nil {
			return fmt.Errorf("%s: -digest: the contender does not show its store", a.contender)
		}
		rep.StoreDigest = driver.Digest(out.keys())
	}
	if err := driver.WriteMsg(os.Stdout, driver.MsgSynced, rep); err != nil {
		return err
	}
	if err := followParent(ctx, stdin, env, a, prof); err != nil {
		return err
	}
	if out.stop != nil {
		if err := out.stop(); err != nil {
			return fmt.Errorf("%s: %w", a.contender, err)
		}
	}
	hwm, err = driver.VmHWM()
	if err != nil {
		return err
	}
	goruntime.KeepAlive(out.keep)
	return driver.WriteMsg(os.Stdout, driver.MsgExit, driver.ExitReport{HWMBytes: hwm})
}

// followParent runs the parent's commands until it says exit.
func followParent(ctx context.Context, sc *bufio.Scanner, env *childEnv, a childArgs, prof *driver.Profiler) error {
	var cpu0 time.Duration
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case driver.CmdSteady:
			if err := prof.StartCPU("steady"); err != nil {
				return err
			}
			cpu0 = driver.CPUTime()
			env.lags.start()
			env.probe.start()
			env.slow.start()
			if err := driver.WriteMsg(os.Stdout, driver.MsgReady, struct{}{}); err != nil {
				return err
			}
		case driver.CmdEnd:
			n, err := strconv.Atoi(arg)
			if err != nil {
				return fmt.Errorf("bad command %q", sc.Text())
			}
			lags, err := env.lags.wait(ctx, n, a.timeout)
			cpu := driver.CPUTime() - cpu0
			prof.StopCPU()
			if err != nil {
				return fmt.Errorf("%s: steady state: %w", a.contender, err)
			}
			rep, err := env.steadyReport(lags, cpu)
			if err != nil {
				return err
			}
			if err := driver.WriteMsg(os.Stdout, driver.MsgSteady, rep); err != nil {
				return err
			}
		case driver.CmdProbe:
			env.probe.start()
			if err := driver.WriteMsg(os.Stdout, driver.MsgReady, struct{}{}); err != nil {
				return err
			}
		case driver.CmdRequests:
			if err := driver.WriteMsg(os.Stdout, driver.MsgRequests, driver.RequestsReport{Kinds: env.probe.requestKinds()}); err != nil {
				return err
			}
		case driver.CmdExit:
			return nil
		default:
			return fmt.Errorf("unknown command %q", sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("parent closed stdin without saying exit")
}
