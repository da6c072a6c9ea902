package driver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"syscall"
	"time"
)

// Child is one running contender process.
type Child struct {
	Name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	Lines  chan string // stdout lines; closed at EOF
	Stderr *tail
	Waited chan struct{}
	Err    error // exit status, valid once waited is closed
}

// StartProcess runs exe with args as contender c: its environment is this
// process's and c's.
func StartProcess(exe string, c Contender, args []string) (*Child, error) {
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), c.Env...)
	// The kernel kills the child if the benchmark dies without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	ch := &Child{Name: c.Name, cmd: cmd, Lines: make(chan string, 16), Stderr: &tail{max: 16 << 10}, Waited: make(chan struct{})}
	cmd.Stderr = ch.Stderr
	var err error
	if ch.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Name, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			ch.Lines <- sc.Text()
		}
		close(ch.Lines)
		ch.Err = cmd.Wait()
		close(ch.Waited)
	}()
	return ch, nil
}

// Expect waits for the child's next message, which must be of kind, and
// decodes it into v.
func (c *Child) Expect(ctx context.Context, kind string, v any, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-c.Lines:
		if !ok {
			<-c.Waited
			return fmt.Errorf("%s exited (%v) before saying %s; its stderr:\n%s", c.Name, c.Err, kind, c.Stderr)
		}
		return ParseMsg(line, kind, v)
	case <-t.C:
		return fmt.Errorf("%s said nothing for %s while expected to say %s; its stderr:\n%s", c.Name, timeout, kind, c.Stderr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ExpectLine waits for the child's next stdout line that matches re,
// skipping the others, and returns it.
func (c *Child) ExpectLine(ctx context.Context, re *regexp.Regexp, timeout time.Duration) (string, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case line, ok := <-c.Lines:
			if !ok {
				<-c.Waited
				return "", fmt.Errorf("%s exited (%v) before printing a line matching %s; its stderr:\n%s", c.Name, c.Err, re, c.Stderr)
			}
			if re.MatchString(line) {
				return line, nil
			}
		case <-t.C:
			return "", fmt.Errorf("%s printed no line matching %s within %s; its stderr:\n%s", c.Name, re, timeout, c.Stderr)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Send writes a command line to the child.
func (c *Child) Send(cmd string) error {
	_, err := io.WriteString(c.stdin, cmd+"\n")
	return err
}

// Wait waits for the child to exit, for at most timeout.
func (c *Child) Wait(timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-c.Waited:
		if c.Err != nil {
			return fmt.Errorf("%s: %w; its stderr:\n%s", c.Name, c.Err, c.Stderr)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%s did not exit within %s", c.Name, timeout)
	}
}

// Pid is the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Interrupt sends the child SIGINT, as Ctrl-C would.
func (c *Child) Interrupt() error { return c.cmd.Process.Signal(syscall.SIGINT) }

// SIGKILL kills the child at once, as a crash would, leaving the rest to
// the caller: its lines end, then Waited closes.
func (c *Child) SIGKILL() error { return c.cmd.Process.Kill() }

// Kill ends the child if it still runs and waits for it.
func (c *Child) Kill() {
	_ = c.stdin.Close()
	select {
	case <-c.Waited:
		return
	default:
	}
	_ = c.cmd.Process.Kill()
	// Drain stdout so that the reading goroutine can reach Wait.
	for range c.Lines {
	}
	<-c.Waited
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

var ErrInterrupted = errors.New("interrupted")
