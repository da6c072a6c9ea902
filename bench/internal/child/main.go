package child

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
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Args are a program's flags, which the parent sets.
type Args struct {
	Contender  string
	Resource   string
	Namespace  string
	Kubeconfig string
	Want       int
	Timeout    time.Duration
	ProfileDir string
	Tag        string
	// Barrier: say ready once set up and start work only when told go,
	// so that the parent can start several children at once.
	Barrier bool
	// Slow: the contender has a second handler, slow in the steady state.
	Slow bool
	// Snapshot: our syncer keeps its snapshot in this file (WithSnapshot).
	Snapshot string
	// Shard: "i/n", our syncer syncs shard i of n.
	Shard string
	// Digest: report a digest of the store's names and resourceVersions.
	Digest bool
	// FieldSelector: sync only the objects it selects (a node agent's
	// spec.nodeName=<node>).
	FieldSelector string
	// Fleet: be the replica of this identity in the fleet FleetName (the
	// fleet program).
	Fleet, FleetName string
	// Names: sync only the first Names objects (ObjectName), by name: the
	// named part's contenders; -want is then the objects found of them.
	Names int
}

// ParseArgs parses a program's command line.
func ParseArgs(args []string) (Args, error) {
	var a Args
	fs := flag.NewFlagSet(os.Args[0], flag.ContinueOnError)
	fs.StringVar(&a.Contender, "contender", "", "contender to run")
	fs.StringVar(&a.Resource, "resource", "", "resource")
	fs.StringVar(&a.Namespace, "namespace", "", "namespace")
	fs.StringVar(&a.Kubeconfig, "kubeconfig", "", "kubeconfig")
	fs.IntVar(&a.Want, "want", -1, "objects expected; 0 for an idle run, on nothing")
	fs.DurationVar(&a.Timeout, "timeout", 5*time.Minute, "longest wait for sync and for the steady state's updates")
	fs.StringVar(&a.ProfileDir, "profile", "", "folder for pprof profiles")
	fs.StringVar(&a.Tag, "tag", "", "profile file name prefix")
	fs.BoolVar(&a.Barrier, "barrier", false, "say ready, then wait for go before starting work")
	fs.BoolVar(&a.Slow, "slow", false, "add a second handler, slow in the steady state")
	fs.StringVar(&a.Snapshot, "snapshot", "", "our syncer's snapshot file (runtime.WithSnapshot)")
	fs.StringVar(&a.Shard, "shard", "", "i/n: our syncer syncs shard i of n (runtime.WithShard); -want is then the whole resource's count")
	fs.BoolVar(&a.Digest, "digest", false, "report a digest of the synced store's names and resourceVersions")
	fs.StringVar(&a.FieldSelector, "field-selector", "", "sync only the objects this field selector selects; -want is then their count")
	fs.StringVar(&a.Fleet, "fleet", "", "be this replica of the fleet -fleet-name, syncing the shards it holds")
	fs.StringVar(&a.FleetName, "fleet-name", "", "the fleet's name")
	fs.IntVar(&a.Names, "names", 0, "sync only the first n objects (obj-000000 on), by name; -want is then the count of those that exist")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	if a.Names < 0 {
		return a, fmt.Errorf("-names %d: want 0 or more", a.Names)
	}
	if a.Contender == "" || a.Resource == "" || a.Namespace == "" || a.Kubeconfig == "" || a.Want < 0 {
		return a, errors.New("-contender, -resource, -namespace, -kubeconfig and -want are required")
	}
	return a, nil
}

// Config returns the rest.Config of a's kubeconfig, as fast as the server
// lets it be.
func (a Args) Config() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", a.Kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 1000, 2000
	return cfg, nil
}

// Main is a contender program's main: it runs the contender its flags
// name with run, reports to the parent on stdout and follows its commands
// on stdin, then exits.
func Main(run Run) {
	if err := main1(os.Args[1:], run); err != nil {
		fmt.Fprintln(os.Stderr, os.Args[0]+":", err)
		os.Exit(1)
	}
}

func main1(args []string, run Run) error {
	a, err := ParseArgs(args)
	if err != nil {
		return err
	}
	plural, err := Plural(a.Resource)
	if err != nil {
		return err
	}
	cfg, err := a.Config()
	if err != nil {
		return err
	}
	contender := NamedAs(RunAs(a.Contender, cfg))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	prof := driver.NewProfiler(a.ProfileDir, a.Tag)
	env := &Env{Cfg: cfg, Namespace: a.Namespace, Plural: plural, Timeout: a.Timeout,
		Lags: NewLagObserver(), Probe: newProbe(plural), Snapshot: a.Snapshot, Want: a.Want, FieldSelector: a.FieldSelector}
	for i := range a.Names {
		env.Names = append(env.Names, ObjectName(i))
	}
	if a.Shard != "" {
		if _, err := fmt.Sscanf(a.Shard, "%d/%d", &env.Shard, &env.Shards); err != nil || env.Shards < 1 {
			return fmt.Errorf("-shard %q: want i/n", a.Shard)
		}
	}
	cfg.Wrap(env.Probe.wrap)
	var wire atomic.Int64
	cfg.Dial = driver.CountingDial(&wire)
	if a.Slow {
		env.Slow = &SlowHandler{}
	}

	stdin := bufio.NewScanner(os.Stdin)
	if a.Barrier {
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
	out, err := run(ctx, contender, a.Resource, env)
	took := time.Since(started)
	read := wire.Load()
	hwm, hwmErr := driver.VmHWM()
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	prof.StopCPU()
	if err != nil {
		return fmt.Errorf("%s: %w", a.Contender, err)
	}
	if hwmErr != nil {
		return hwmErr
	}
	if out.Objects != a.Want && (a.Shard == "" || out.Objects > a.Want) {
		return fmt.Errorf("%s: saw %d objects at sync, want %d", a.Contender, out.Objects, a.Want)
	}
	if err := prof.WriteHeap("sync"); err != nil {
		return err
	}
	rep := driver.SyncReport{
		SyncSeconds: took.Seconds(), Objects: out.Objects, HWMBytes: hwm,
		TotalAllocBytes: ms.TotalAlloc, NumGC: ms.NumGC, Note: out.Note, BytesRead: read, StoreBytes: out.StoreBytes,
	}
	if a.Digest {
		if out.Keys == nil {
			return fmt.Errorf("%s: -digest: the contender does not show its store", a.Contender)
		}
		rep.StoreDigest = driver.Digest(out.Keys())
	}
	if err := driver.WriteMsg(os.Stdout, driver.MsgSynced, rep); err != nil {
		return err
	}
	if err := followParent(ctx, stdin, env, a, prof); err != nil {
		return err
	}
	if out.Stop != nil {
		if err := out.Stop(); err != nil {
			return fmt.Errorf("%s: %w", a.Contender, err)
		}
	}
	hwm, err = driver.VmHWM()
	if err != nil {
		return err
	}
	goruntime.KeepAlive(out.Keep)
	return driver.WriteMsg(os.Stdout, driver.MsgExit, driver.ExitReport{HWMBytes: hwm})
}

// followParent runs the parent's commands until it says exit.
func followParent(ctx context.Context, sc *bufio.Scanner, env *Env, a Args, prof *driver.Profiler) error {
	var cpu0 time.Duration
	var steadyStart time.Time
	for sc.Scan() {
		cmd, arg, _ := strings.Cut(sc.Text(), " ")
		switch cmd {
		case driver.CmdSteady:
			if err := prof.StartCPU("steady"); err != nil {
				return err
			}
			cpu0, steadyStart = driver.CPUTime(), time.Now()
			env.Lags.start()
			env.Probe.start()
			env.Slow.start()
			if err := driver.WriteMsg(os.Stdout, driver.MsgReady, struct{}{}); err != nil {
				return err
			}
		case driver.CmdEnd:
			n, err := strconv.Atoi(arg)
			if err != nil {
				return fmt.Errorf("bad command %q", sc.Text())
			}
			lags, err := env.Lags.wait(ctx, n, a.Timeout)
			cpu := driver.CPUTime() - cpu0
			prof.StopCPU()
			if err != nil {
				return fmt.Errorf("%s: steady state: %w", a.Contender, err)
			}
			rep, err := env.steadyReport(lags, cpu)
			if err != nil {
				return err
			}
			rep.Seconds = time.Since(steadyStart).Seconds()
			if err := driver.WriteMsg(os.Stdout, driver.MsgSteady, rep); err != nil {
				return err
			}
		case driver.CmdProbe:
			env.Probe.start()
			if err := driver.WriteMsg(os.Stdout, driver.MsgReady, struct{}{}); err != nil {
				return err
			}
		case driver.CmdRequests:
			if err := driver.WriteMsg(os.Stdout, driver.MsgRequests, driver.RequestsReport{Kinds: env.Probe.requestKinds()}); err != nil {
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
