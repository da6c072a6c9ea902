package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

func TestMain(m *testing.M) { testbed.Main(m) }

// replica is a running ctrl process and its stdout.
type replica struct {
	cmd *exec.Cmd
	out *lines.Reader
}

// expect waits up to d until r has said a line matching pattern, at any
// point of its output.
func (r *replica) expect(t *testing.T, pattern string, d time.Duration) {
	t.Helper()
	eventually(t, d, func() string {
		if r.count(pattern) == 0 {
			return fmt.Sprintf("no line matching %q; said:\n%s", pattern, strings.Join(r.out.Lines(), "\n"))
		}
		return ""
	})
}

func (r *replica) count(pattern string) int {
	re, n := regexp.MustCompile(pattern), 0
	for _, l := range r.out.Lines() {
		if re.MatchString(l) {
			n++
		}
	}
	return n
}

// The controller-runtime example on the real server: the leader reconciles
// every widget (a Job each, and its status), a spec change and a delete; a
// second replica syncs as a standby without leading; once the leader is
// killed with SIGKILL the standby leads and reconciles a change with the
// store it synced before, no second sync.
func TestStandbyTakesOverSynced(t *testing.T) {
	const n = 20
	srv := testbed.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := crd.Install(ctx, srv.Config(), time.Minute); err != nil {
		t.Fatal(err)
	}
	ns, leaseNS := srv.Namespace(t), srv.Namespace(t)
	widgets, err := fixture.NewWidgets(srv.Config(), ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := fixture.CreateWidgets(ctx, widgets, ns, n, 4, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "ctrl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	start := func(id string) *replica {
		cmd := exec.Command(bin, "--kubeconfig", kubeconfig, "--namespace", ns, "--id", id,
			"--lease-namespace", leaseNS, "--lease-duration", "3s")
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return &replica{cmd: cmd, out: lines.Read(pipe, func(string) {})}
	}
	phases := func(want map[string]string) func() string {
		return func() string {
			l, err := widgets.List(ctx)
			if err != nil {
				return err.Error()
			}
			for _, w := range l {
				if p, ok := want[w.Name]; ok && w.Status.Phase != p || !ok && w.Status.Phase != "Ready" {
					return fmt.Sprintf("%s: phase %q", w.Name, w.Status.Phase)
				}
			}
			return ""
		}
	}
	setOwner := func(name, owner string) {
		w, err := widgets.Get(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		w.Spec.Owner = owner
		if _, err := widgets.Update(ctx, w); err != nil {
			t.Fatal(err)
		}
	}

	a := start("a")
	a.expect(t, `^replica a synced 20 widgets, mode=watchlist$`, time.Minute)
	a.expect(t, `^replica a leads`, time.Minute)
	eventually(t, time.Minute, phases(nil))

	b := start("b")
	b.expect(t, `^replica b synced 20 widgets, mode=watchlist$`, time.Minute)
	setOwner("widget-00001", "")
	a.expect(t, phase("widget-00001", "Pending"), 30*time.Second)
	if err := widgets.Delete(ctx, "widget-00002"); err != nil {
		t.Fatal(err)
	}
	a.expect(t, `"msg"="deleted".*"namespace"="`+ns+`" "name"="widget-00002"`, 30*time.Second)
	if b.count(`^replica b leads`) > 0 {
		t.Fatal("the standby leads while the leader lives")
	}

	if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	b.expect(t, `^replica b leads, with 19 widgets in its store$`, time.Minute)
	t.Logf("the standby leads %s after the leader was killed (lease 3s)", time.Since(killed).Round(100*time.Millisecond))
	setOwner("widget-00003", "")
	b.expect(t, phase("widget-00003", "Pending"), 30*time.Second)
	eventually(t, 30*time.Second, phases(map[string]string{"widget-00001": "Pending", "widget-00003": "Pending"}))
	if got := b.count(`^replica b synced `); got != 1 {
		t.Errorf("the standby synced %d times; want once, before it led", got)
	}
}

// phase is the pattern of the log line of a widget's phase written.
func phase(name, phase string) string {
	return `"msg"="phase".*"name"="` + name + `".*"kind"="Widget" "phase"="` + phase + `"`
}

// eventually polls f until it returns "" or d passes.
func eventually(t *testing.T, d time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for msg := f(); msg != ""; msg = f() {
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(100 * time.Millisecond) // polling interval
	}
}
