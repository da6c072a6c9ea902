package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
)

// ui prints the demo's steps: bold headers and colored marks on a
// terminal, plain lines elsewhere (or when NO_COLOR is set).
type ui struct {
	out, err io.Writer
	color    bool
	started  time.Time
	n        int // steps so far
}

func newUI(stdout, stderr io.Writer) *ui {
	_, noColor := os.LookupEnv("NO_COLOR")
	return &ui{out: stdout, err: stderr, color: progress.IsTerminal(stdout) && !noColor, started: time.Now()}
}

func (u *ui) paint(code, s string) string {
	if !u.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// step starts a new step: "==> [3] Creating objects".
func (u *ui) step(format string, args ...any) {
	u.n++
	fmt.Fprintf(u.out, "\n%s %s\n", u.paint("1;34", fmt.Sprintf("==> [%d]", u.n)), u.paint("1", fmt.Sprintf(format, args...)))
}

// info prints a detail of the current step.
func (u *ui) info(format string, args ...any) {
	fmt.Fprintf(u.out, "    %s\n", fmt.Sprintf(format, args...))
}

// ok prints a check that passed.
func (u *ui) ok(format string, args ...any) {
	fmt.Fprintf(u.out, "    %s %s\n", u.paint("32", "ok"), fmt.Sprintf(format, args...))
}

// action prints what the demo does to the server while an example runs.
func (u *ui) action(format string, args ...any) {
	fmt.Fprintf(u.out, "  %s %s\n", u.paint("33", "demo:"), fmt.Sprintf(format, args...))
}

// elapsed returns the time since the demo started, rounded for display.
func (u *ui) elapsed() time.Duration { return time.Since(u.started).Round(100 * time.Millisecond) }
