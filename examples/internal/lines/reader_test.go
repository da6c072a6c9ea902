package lines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestWaitInOrder(t *testing.T) {
	pr, pw := io.Pipe()
	var echoed []string
	r := Read(pr, func(l string) { echoed = append(echoed, l) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	go func() {
		io.WriteString(pw, "starting\nsynced 3 things\nadded a\n")
		io.WriteString(pw, "added b\n")
	}()
	if got, err := r.Wait(ctx, regexp.MustCompile(`^synced \d+ things$`)); err != nil || got != "synced 3 things" {
		t.Fatalf("Wait = %q, %v", got, err)
	}
	if got, err := r.Wait(ctx, regexp.MustCompile(`^added`)); err != nil || got != "added a" {
		t.Fatalf("Wait = %q, %v; want the first line after the last match", got, err)
	}
	if got, err := r.Wait(ctx, regexp.MustCompile(`^added`)); err != nil || got != "added b" {
		t.Fatalf("Wait = %q, %v; want the next one", got, err)
	}
	// "starting" was skipped by the first Wait: it is consumed.
	pw.Close()
	_, err := r.Wait(ctx, regexp.MustCompile(`^starting$`))
	if err == nil || !strings.Contains(err.Error(), "before the output ended") || !strings.Contains(err.Error(), "added b") {
		t.Fatalf("Wait after the end = %v; want an error that says so and shows the last lines", err)
	}
	<-r.Done()
	if len(r.Lines()) != 4 || len(echoed) != 4 {
		t.Errorf("Lines = %q, echoed %q; want 4 each", r.Lines(), echoed)
	}
}

func TestWaitDeadline(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	r := Read(pr, nil)
	io.WriteString(pw, "something else\n")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := r.Wait(ctx, regexp.MustCompile(`never`))
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") || !strings.Contains(err.Error(), "something else") {
		t.Fatalf("Wait = %v; want a deadline error with the last lines", err)
	}
}

func TestProgram(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := Go(ctx, func(ctx context.Context, out io.Writer) error {
		fmt.Fprintln(out, "ready")
		<-ctx.Done()
		fmt.Fprintln(out, "bye")
		return errors.New("stopped")
	})
	if _, err := p.Wait(ctx, regexp.MustCompile(`^ready$`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(ctx); err == nil || err.Error() != "stopped" {
		t.Fatalf("Stop = %v, want what f returned", err)
	}
	if err := p.Stop(ctx); err == nil || err.Error() != "stopped" {
		t.Fatalf("second Stop = %v, want the same", err)
	}
	<-p.Done()
	if got := p.Lines(); len(got) != 2 || got[1] != "bye" {
		t.Errorf("lines %q", got)
	}
}
