package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
)

// child is an example program the demo runs. Its stdout is read line by
// line (and echoed) so that the demo can wait for what it says; its stderr,
// where its progress bar is drawn, goes straight to the demo's.
type child struct {
	name string
	cmd  *exec.Cmd
	out  *lines.Reader
	done chan struct{} // closed when the process has exited and its output is read
	err  error         // how it exited, once done
}

// start runs bin with args.
func start(name, bin string, args []string, stdout, stderr io.Writer) (*child, error) {
	cmd := exec.Command(bin, args...)
	cmd.Stderr = stderr
	// Its own process group, and killed by the kernel if the demo dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	c.out = lines.Read(pipe, func(l string) { fmt.Fprintln(stdout, l) })
	go func() {
		<-c.out.Done() // Wait closes the pipe: read it all first
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// expect waits up to d for the next stdout line matching pattern.
func (c *child) expect(ctx context.Context, d time.Duration, pattern string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	line, err := c.out.Wait(ctx, regexp.MustCompile(pattern))
	if err != nil {
		return "", fmt.Errorf("%s: %w%s", c.name, err, c.exitNote())
	}
	return line, nil
}

// wait waits up to d for the process to exit and returns how it did.
func (c *child) wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Errorf("%s: %w", c.name, c.err)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%s: still running after %s", c.name, d)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// interrupt sends SIGINT, as Ctrl-C would, and waits up to d for a clean exit.
func (c *child) interrupt(ctx context.Context, d time.Duration) error {
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%s: interrupt: %w", c.name, err)
	}
	return c.wait(ctx, d)
}

// kill ends the process group at once if it still runs; for cleanup.
func (c *child) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// peakRSS returns the peak resident set size of the running process: the
// kernel's high-water mark of its own RSS, VmHWM in /proc/PID/status. Not
// ru_maxrss, which a wait reports at exit: a child started by os/exec
// (vfork, then exec) is charged there with the resident set its parent had
// at the exec, so that a child allocating nothing, started by a demo
// holding 200 MiB, would report 200 MiB. The process must still run: an
// exited one has no memory left to read.
func (c *child) peakRSS() (int64, error) {
	select {
	case <-c.done:
		return 0, fmt.Errorf("%s: peak RSS asked after it exited%s", c.name, c.exitNote())
	default:
	}
	hwm, err := statusBytes(c.cmd.Process.Pid, "VmHWM")
	if err != nil {
		return 0, fmt.Errorf("%s: peak RSS: %w", c.name, err)
	}
	return hwm, nil
}

// statusBytes reads the "<field>: <n> kB" line of /proc/pid/status, in
// bytes. A process that has exited (a zombie) has no such line.
func statusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s line %q: %w", field, line, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no %s line in /proc/%d/status (has it exited?)", field, pid)
}

// exitNote says how the process ended, if it has, for error messages.
func (c *child) exitNote() string {
	select {
	case <-c.done:
		if c.err != nil {
			return fmt.Sprintf(" (it exited: %v)", c.err)
		}
		return " (it exited with status 0)"
	default:
		return ""
	}
}

// commandLine renders bin and args for display, with long paths shortened.
func commandLine(name string, args []string) string {
	shown := make([]string, 0, len(args))
	for _, a := range args {
		if strings.HasPrefix(a, "/") {
			a = "…/" + a[strings.LastIndex(a, "/")+1:]
		}
		shown = append(shown, a)
	}
	return strings.TrimSpace(name + " " + strings.Join(shown, " "))
}
