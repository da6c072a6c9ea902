package progress

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newTestBar(buf *bytes.Buffer, total int, tty bool) (*Bar, *fakeClock) {
	clock := &fakeClock{t: time.Unix(1000, 0)}
	b := New(buf, "syncing things", total, WithTerminal(tty), func(b *Bar) { b.now = clock.now })
	return b, clock
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestPlainPrintsEveryTenthAndTheEnd(t *testing.T) {
	var buf bytes.Buffer
	b, clock := newTestBar(&buf, 200, false)
	for range 200 {
		b.Add(1)
	}
	clock.advance(1420 * time.Millisecond)
	b.Finish()
	got := lines(buf.String())
	if len(got) != 10 {
		t.Fatalf("got %d lines, want 9 steps and the end:\n%s", len(got), buf.String())
	}
	for i, l := range got[:9] {
		want := fmt.Sprintf("syncing things: %d/200 (%d%%)", (i+1)*20, (i+1)*10)
		if l != want {
			t.Errorf("line %d = %q, want %q", i, l, want)
		}
	}
	if want := "syncing things: 200/200 (100%) done in 1.42s"; got[9] != want {
		t.Errorf("last line = %q, want %q", got[9], want)
	}
	if strings.ContainsAny(buf.String(), "\r\x1b") {
		t.Errorf("plain output has terminal control characters: %q", buf.String())
	}
}

func TestPlainBigStepsPrintOnce(t *testing.T) {
	var buf bytes.Buffer
	b, _ := newTestBar(&buf, 10, false)
	b.Add(7) // passes 10% to 70% at once: one line, not seven
	b.Add(8) // more than estimated (created during the sync): one line for passing 90%
	b.Finish()
	want := "syncing things: 7/10 (70%)\nsyncing things: 15/10 (100%)\nsyncing things: 15/10 (100%) done in 0.00s\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestPlainUnknownTotal(t *testing.T) {
	var buf bytes.Buffer
	b, _ := newTestBar(&buf, -1, false)
	for range 2500 {
		b.Add(1)
	}
	b.Finish()
	want := "syncing things: 1000\nsyncing things: 2000\nsyncing things: 2500 done in 0.00s\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestPlainEmptyResource(t *testing.T) {
	var buf bytes.Buffer
	b, _ := newTestBar(&buf, 0, false)
	b.Finish()
	if want := "syncing things: 0 done in 0.00s\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestTerminalRedrawsInPlaceAtMostEveryInterval(t *testing.T) {
	var buf bytes.Buffer
	b, clock := newTestBar(&buf, 100, true)
	if !strings.HasPrefix(buf.String(), "\rsyncing things [") {
		t.Fatalf("no first draw at New: %q", buf.String())
	}
	draws := func() int { return strings.Count(buf.String(), "\r") }
	b.Add(10)
	b.Add(10)
	if got := draws(); got != 1 {
		t.Errorf("redrawn %d times within the interval, want only the first draw", got)
	}
	clock.advance(50 * time.Millisecond)
	b.Add(30)
	if got := draws(); got != 2 {
		t.Errorf("%d draws after the interval passed, want 2", got)
	}
	last := buf.String()[strings.LastIndex(buf.String(), "\r"):]
	if want := "50/100 (50%)"; !strings.Contains(last, want) {
		t.Errorf("last draw %q does not show %q", last, want)
	}
	if got := strings.Count(last, "█"); got != 15 {
		t.Errorf("half-way bar has %d full cells of 30, want 15: %q", got, last)
	}
	clock.advance(2*time.Second + 50*time.Millisecond) // 2.1s since New
	b.Add(50)
	b.Finish()
	out := buf.String()
	if !strings.HasSuffix(out, "\x1b[K\n") {
		t.Errorf("the final draw does not end the line: %q", out)
	}
	final := out[strings.LastIndex(out, "\r"):]
	for _, want := range []string{"100/100 (100%)", strings.Repeat("█", 30), "2.1s"} {
		if !strings.Contains(final, want) {
			t.Errorf("final draw %q does not show %q", final, want)
		}
	}
	n := len(out)
	b.Add(1)
	b.Finish()
	if len(buf.String()) != n || b.Count() != 100 {
		t.Errorf("Add or Finish after Finish changed the bar: %q", buf.String()[n:])
	}
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
	b := New(&bytes.Buffer{}, "x", 1)
	if b.tty {
		t.Error("New detected a terminal in a buffer")
	}
}

func TestLog(t *testing.T) {
	var buf bytes.Buffer
	b, _ := newTestBar(&buf, 10, false)
	b.Add(5)
	b.Log("error: boom")
	if want := "syncing things: 5/10 (50%)\nerror: boom\n"; buf.String() != want {
		t.Errorf("plain: got %q, want %q", buf.String(), want)
	}

	buf.Reset()
	b, _ = newTestBar(&buf, 10, true)
	buf.Reset()
	b.Log("error: boom")
	out := buf.String()
	if !strings.HasPrefix(out, "\rerror: boom\x1b[K\n\rsyncing things [") {
		t.Errorf("terminal: the message does not replace the bar, which is not drawn again below: %q", out)
	}
	b.Finish()
	buf.Reset()
	b.Log("after")
	if buf.String() != "after\n" {
		t.Errorf("terminal after Finish: got %q, want a plain line", buf.String())
	}
}
