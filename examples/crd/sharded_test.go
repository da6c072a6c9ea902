package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// replica is a process of `crd --reconcile --shards`, its stdout lines
// kept with the time each was read.
type replica struct {
	name  string
	cmd   *exec.Cmd
	out   *lines.Reader
	mu    sync.Mutex
	lines []timedLine
}

type timedLine struct {
	at   time.Time
	text string
}

func (r *replica) seen() []timedLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

var (
	tookLine = regexp.MustCompile(`^replica \S+ took shard (\d+): `)
	gaveLine = regexp.MustCompile(`^replica \S+ gave up shard (\d+): `)
)

// held returns the shards r holds by its last lines.
func (r *replica) held() map[int]bool {
	h := map[int]bool{}
	for _, l := range r.seen() {
		if m := tookLine.FindStringSubmatch(l.text); m != nil {
			h[atoi(m[1])] = true
		}
		if m := gaveLine.FindStringSubmatch(l.text); m != nil {
			delete(h, atoi(m[1]))
		}
	}
	return h
}

func atoi(s string) (n int) {
	fmt.Sscan(s, &n)
	return n
}

// span is a time a replica worked on a shard: from the line saying it took
// the shard (its syncer synced; its reconciles come after) to the one
// saying it gave it up (its work returned), or to its death.
type span struct {
	replica    string
	start, end time.Time
}

// spans returns each shard's spans of r, those still open ending at end.
func (r *replica) spans(end time.Time) map[int][]span {
	out := map[int][]span{}
	open := map[int]time.Time{}
	for _, l := range r.seen() {
		if m := tookLine.FindStringSubmatch(l.text); m != nil {
			open[atoi(m[1])] = l.at
		}
		if m := gaveLine.FindStringSubmatch(l.text); m != nil {
			s := atoi(m[1])
			out[s] = append(out[s], span{r.name, open[s], l.at})
			delete(open, s)
		}
	}
	for s, start := range open {
		out[s] = append(out[s], span{r.name, start, end})
	}
	return out
}

// setupSharded is setup for a sharded controller, with another namespace
// for the fleet's Leases, and a context that ends after timeout or with
// the test. It returns the context, the server, the kubeconfig, the
// widgets client, the widgets' namespace and the Leases'.
func setupSharded(t *testing.T, n int, timeout time.Duration) (context.Context, *testbed.Server, string, *fixture.Widgets, string, string) {
	t.Helper()
	srv, kubeconfig, widgets, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx, srv, kubeconfig, widgets, ns, srv.Namespace(t)
}

// buildExample builds this program into a temporary folder.
func buildExample(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "crd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startReplica starts bin as replica name of a sharded controller of the
// widgets of ns; it is killed when the test ends, if still running.
func startReplica(t *testing.T, bin, kubeconfig, ns, name string, args ...string) *replica {
	t.Helper()
	r := &replica{name: name}
	r.cmd = exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--namespace", ns, "--reconcile", "--replica", name}, args...)...)
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pipe, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.out = lines.Read(pipe, func(l string) {
		r.mu.Lock()
		r.lines = append(r.lines, timedLine{time.Now(), l})
		r.mu.Unlock()
	})
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	return r
}

// leaseLog records every version of the fleet's shard Leases, with the
// time the test saw it.
type leaseLog struct {
	mu      sync.Mutex
	records map[string][]leaseSeen
}

type leaseSeen struct {
	at     time.Time
	holder string
}

// Three replicas over eight shards, with writes flowing at about 200 a
// second; one is killed with SIGKILL. Its shards are taken over within the
// lease plus a sync; no shard was ever worked on by two replicas at once,
// by the replicas' own logs, nor passed from a holder to another before
// the first's lease expired, by the Leases' records; every write made after
// the kill is reconciled.
func TestShardedReplicasTakeOverAKilledOne(t *testing.T) {
	const (
		n      = 300
		shards = 8
		lease  = 3 * time.Second
	)
	ctx, srv, kubeconfig, widgets, ns, leaseNS := setupSharded(t, n, 4*time.Minute)
	bin := buildExample(t)

	leases := &leaseLog{records: map[string][]leaseSeen{}}
	w, err := srv.Client().CoordinationV1().Leases(leaseNS).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	go func() {
		for ev := range w.ResultChan() {
			l, ok := ev.Object.(*coordinationv1.Lease)
			if !ok || ev.Type == watch.Deleted || !strings.Contains(l.Name, "-shard-") {
				continue
			}
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			leases.mu.Lock()
			leases.records[l.Name] = append(leases.records[l.Name], leaseSeen{time.Now(), holder})
			leases.mu.Unlock()
		}
	}()

	replicas := map[string]*replica{}
	for _, name := range []string{"r1", "r2", "r3"} {
		replicas[name] = startReplica(t, bin, kubeconfig, ns, name, "--shards", fmt.Sprint(shards),
			"--lease-namespace", leaseNS, "--lease-duration", lease.String())
	}
	holdings := func(names ...string) (string, bool) {
		count := map[int]int{}
		var parts []string
		for _, name := range names {
			h := replicas[name].held()
			parts = append(parts, fmt.Sprintf("%s=%d", name, len(h)))
			for s := range h {
				count[s]++
			}
		}
		for s := range shards {
			if count[s] != 1 {
				return strings.Join(parts, " "), false
			}
		}
		return strings.Join(parts, " "), true
	}
	eventually(t, time.Minute, func() string {
		if h, ok := holdings("r1", "r2", "r3"); !ok {
			return "shards not all held once: " + h
		}
		return ""
	})

	// Writes flowing: owners taken away and given back at random.
	stopWrites := make(chan struct{})
	var writes sync.WaitGroup
	writes.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopWrites:
				return
			case <-tick.C:
			}
			name := fmt.Sprintf("widget-%05d", rand.IntN(n))
			wd, err := widgets.Get(ctx, name)
			if err != nil {
				continue
			}
			wd.Spec.Owner = []string{"", "alice", "bob"}[rand.IntN(3)]
			widgets.Update(ctx, wd) // a conflict is a write skipped
		}
	})
	lost := replicas["r2"].held()
	killed := time.Now()
	if err := replicas["r2"].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, func() string {
		if h, ok := holdings("r1", "r3"); !ok {
			return "the killed replica's shards not taken over: " + h
		}
		return ""
	})
	var takenOver time.Time
	for _, name := range []string{"r1", "r3"} {
		for _, l := range replicas[name].seen() {
			if m := tookLine.FindStringSubmatch(l.text); m != nil && lost[atoi(m[1])] && l.at.After(takenOver) {
				takenOver = l.at
			}
		}
	}
	took := takenOver.Sub(killed)
	t.Logf("shards %v of the killed replica taken over and synced in %s (lease %s)", slices.Sorted(maps.Keys(lost)), took, lease)
	if took > lease+5*time.Second {
		t.Errorf("takeover took %s, want at most the lease (%s) and 5s", took, lease)
	}
	// Writes go on for a while after the takeover, then every widget's
	// status must come to follow its spec.
	<-time.After(2 * time.Second) // how long writes go on after the takeover
	close(stopWrites)
	writes.Wait()
	eventually(t, time.Minute, statusesFollowSpecs(ctx, widgets))

	// No shard worked on by two replicas at once.
	end := time.Now()
	byShard := map[int][]span{}
	for name, r := range replicas {
		stop := end
		if name == "r2" {
			stop = killed
		}
		for s, sp := range r.spans(stop) {
			byShard[s] = append(byShard[s], sp...)
		}
	}
	for s, sp := range byShard {
		slices.SortFunc(sp, func(a, b span) int { return a.start.Compare(b.start) })
		for i := 1; i < len(sp); i++ {
			if sp[i].start.Before(sp[i-1].end) {
				t.Errorf("shard %d: %s worked on it from %s while %s did until %s", s, sp[i].replica,
					sp[i].start.Format("15:04:05.000"), sp[i-1].replica, sp[i-1].end.Format("15:04:05.000"))
			}
		}
	}
	// No Lease passed from a live holder to another before it expired. A
	// release (no holder: a shard given up to rebalance, say, which a
	// loaded machine makes happen when the replicas do not start at once)
	// is no pass: whoever takes the shard next may at once.
	leases.mu.Lock()
	defer leases.mu.Unlock()
	for name, recs := range leases.records {
		for i := 1; i < len(recs); i++ {
			prev, cur := recs[i-1], recs[i]
			if prev.holder == "" || cur.holder == "" || cur.holder == prev.holder {
				continue
			}
			if gap := cur.at.Sub(prev.at); gap < lease-200*time.Millisecond {
				t.Errorf("%s passed from %s to %s %s after %s's last renewal was seen; its lease is %s",
					name, prev.holder, cur.holder, gap, prev.holder, lease)
			}
		}
	}
}

// A replica restarted under the same name takes its shards back warm from
// the snapshots it saved when it stopped (--snapshot-dir): the first run's
// shards sync cold, the second's warm, with a widget changed meanwhile
// reconciled.
func TestShardSnapshotsMakeARestartWarm(t *testing.T) {
	const (
		n      = 200
		shards = 2
	)
	ctx, _, kubeconfig, widgets, ns, leaseNS := setupSharded(t, n, 2*time.Minute)
	bin, dir := buildExample(t), t.TempDir()
	args := []string{"--shards", fmt.Sprint(shards), "--lease-namespace", leaseNS, "--lease-duration", "3s", "--snapshot-dir", dir}
	modes := func(r *replica) map[int]string {
		out := map[int]string{}
		for _, l := range r.seen() {
			if m := tookLine.FindStringSubmatch(l.text); m != nil {
				_, mode, _ := strings.Cut(l.text, "mode=")
				mode, _, _ = strings.Cut(mode, ",")
				out[atoi(m[1])] = mode
			}
		}
		return out
	}
	synced := func(r *replica, want string) func() string {
		return func() string {
			if m := modes(r); len(m) != shards || m[0] != want || m[1] != want {
				return fmt.Sprintf("shards taken: %v; want both %s", m, want)
			}
			return ""
		}
	}
	first := startReplica(t, bin, kubeconfig, ns, "r1", args...)
	eventually(t, time.Minute, synced(first, "watchlist"))
	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := first.cmd.Wait(); err != nil {
		t.Fatalf("the first run ended with %v on SIGTERM", err)
	}
	for s := range shards {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("widgets-shard-%d-of-%d.snapshot", s, shards))); err != nil {
			t.Fatalf("shard %d's snapshot: %v", s, err)
		}
	}
	w, err := widgets.Get(ctx, "widget-00007")
	if err != nil {
		t.Fatal(err)
	}
	// An owner given or taken away changes the phase its status must show.
	if w.Spec.Owner == "" {
		w.Spec.Owner = "alice"
	} else {
		w.Spec.Owner = ""
	}
	if _, err := widgets.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	second := startReplica(t, bin, kubeconfig, ns, "r1", args...)
	eventually(t, time.Minute, synced(second, "warm"))
	eventually(t, time.Minute, statusesFollowSpecs(ctx, widgets))
}

// statusesFollowSpecs tells the first widget whose status does not follow
// its spec, "" when every one does.
func statusesFollowSpecs(ctx context.Context, widgets *fixture.Widgets) func() string {
	return func() string {
		l, err := widgets.List(ctx)
		if err != nil {
			return err.Error()
		}
		for _, w := range l {
			if want := phaseOf(w); w.Status.Phase != want {
				return fmt.Sprintf("%s: status %q, spec calls for %q", w.Name, w.Status.Phase, want)
			}
		}
		return ""
	}
}
