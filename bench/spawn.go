package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// child is one running contender process.
type child struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // stdout lines; closed at EOF
	stderr *tail
	waited chan struct{}
	err    error // exit status, valid once waited is closed
}

// startChild re-executes this binary as contender c, with extra child flags.
func startChild(exe string, c contender, o options, kubeconfig string, round int, extra ...string) (*child, error) {
	args := []string{childCommand,
		"-contender=" + c.name,
		"-resource=" + o.resource,
		"-namespace=" + o.namespace,
		"-kubeconfig=" + kubeconfig,
		"-want=" + strconv.Itoa(o.n),
		"-timeout=" + o.timeout.String(),
	}
	if o.profileDir != "" {
		args = append(args, "-profile="+o.profileDir, fmt.Sprintf("-tag=%s.r%d", c.name, round))
	}
	cmd := exec.Command(exe, append(args, extra...)...)
	cmd.Env = append(os.Environ(), c.env...)
	// The kernel kills the child if the benchmark dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	ch := &child{name: c.name, cmd: cmd, lines: make(chan string, 16), stderr: &tail{max: 16 << 10}, waited: make(chan struct{})}
	cmd.Stderr = ch.stderr
	var err error
	if ch.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ch.lines <- sc.Text()
		}
		close(ch.lines)
		ch.err = cmd.Wait()
		close(ch.waited)
	}()
	return ch, nil
}

// expect waits for the child's next message, which must be of kind, and
// decodes it into v.
func (c *child) expect(ctx context.Context, kind string, v any, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-c.lines:
		if !ok {
			<-c.waited
			return fmt.Errorf("%s exited (%v) before saying %s; its stderr:\n%s", c.name, c.err, kind, c.stderr)
		}
		return parseMsg(line, kind, v)
	case <-t.C:
		return fmt.Errorf("%s said nothing for %s while expected to say %s; its stderr:\n%s", c.name, timeout, kind, c.stderr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send writes a command line to the child.
func (c *child) send(cmd string) error {
	_, err := io.WriteString(c.stdin, cmd+"\n")
	return err
}

// wait waits for the child to exit, for at most timeout.
func (c *child) wait(timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.waited:
		if c.err != nil {
			return fmt.Errorf("%s: %w; its stderr:\n%s", c.name, c.err, c.stderr)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%s did not exit within %s", c.name, timeout)
	}
}

// kill ends the child if it still runs and waits for it.
func (c *child) kill() {
	_ = c.stdin.Close()
	select {
	case <-c.waited:
		return
	default:
	}
	_ = c.cmd.Process.Kill()
	// Drain stdout so that the reading goroutine can reach Wait.
	for range c.lines {
	}
	<-c.waited
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.b) == 0 {
		return "(empty)"
	}
	return string(t.b)
}

var errInterrupted = errors.New("interrupted")
