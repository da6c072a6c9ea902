package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Bar counts objects received against an estimated total and shows it on w.
// It is safe for concurrent use. Call Finish when the sync is done.
type Bar struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	total    int // <= 0: unknown
	n        int
	tty      bool
	width    int // cells of the bar
	interval time.Duration
	now      func() time.Time
	started  time.Time
	drawn    time.Time // last redraw, on a terminal
	step     int       // plain output: steps printed so far
	finished bool
}

// Option configures a Bar.
type Option func(*Bar)

// WithTerminal forces redrawing in place (true) or plain lines (false)
// instead of detecting whether w is a terminal.
func WithTerminal(tty bool) Option { return func(b *Bar) { b.tty = tty } }

// WithRedrawInterval sets how often, at most, a terminal line is redrawn
// (default 50ms).
func WithRedrawInterval(d time.Duration) Option { return func(b *Bar) { b.interval = d } }

// New returns a Bar for label (e.g. "syncing configmaps") that expects
// total objects; a total of 0 or less means unknown.
func New(w io.Writer, label string, total int, opts ...Option) *Bar {
	b := &Bar{
		w:        w,
		label:    label,
		total:    total,
		tty:      IsTerminal(w),
		width:    30,
		interval: 50 * time.Millisecond,
		now:      time.Now,
	}
	for _, o := range opts {
		o(b)
	}
	b.started = b.now()
	if b.tty {
		b.draw()
	}
	return b
}

// IsTerminal tells whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Add counts n more objects.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.n += n
	if b.tty {
		if b.now().Sub(b.drawn) >= b.interval {
			b.draw()
		}
		return
	}
	b.plain()
}

// Count returns the number of objects counted so far.
func (b *Bar) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// Finish shows the final count and ends the line. Later calls do nothing.
func (b *Bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	took := b.now().Sub(b.started).Seconds()
	if b.tty {
		b.draw()
		fmt.Fprintln(b.w)
		return
	}
	fmt.Fprintf(b.w, "%s: %s done in %.2fs\n", b.label, b.count(), took)
}

// Log prints msg on a line of its own: above the bar on a terminal, which
// is then drawn again below it.
func (b *Bar) Log(msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tty || b.finished {
		fmt.Fprintln(b.w, msg)
		return
	}
	fmt.Fprintf(b.w, "\r%s\x1b[K\n", msg)
	b.draw()
}

// plain prints a line each time the count passes a tenth of the total,
// up to 90% (Finish prints the last), or every 1000 objects when the total
// is unknown.
func (b *Bar) plain() {
	if b.total <= 0 {
		if b.n/1000 > b.step {
			b.step = b.n / 1000
			fmt.Fprintf(b.w, "%s: %d\n", b.label, b.n)
		}
		return
	}
	step := min(b.n*10/b.total, 9)
	if step > b.step {
		b.step = step
		fmt.Fprintf(b.w, "%s: %s\n", b.label, b.count())
	}
}

// draw redraws the terminal line in place.
func (b *Bar) draw() {
	b.drawn = b.now()
	took := b.drawn.Sub(b.started).Seconds()
	if b.total <= 0 {
		fmt.Fprintf(b.w, "\r%s %d %.1fs\x1b[K", b.label, b.n, took)
		return
	}
	full := min(b.n*b.width/b.total, b.width)
	fmt.Fprintf(b.w, "\r%s [%s%s] %s %.1fs\x1b[K", b.label,
		strings.Repeat("█", full), strings.Repeat("░", b.width-full), b.count(), took)
}

// count renders "n/total (p%)"; p stays at 100 when more objects than
// estimated arrive (they were created during the sync).
func (b *Bar) count() string {
	if b.total <= 0 {
		return fmt.Sprintf("%d", b.n)
	}
	return fmt.Sprintf("%d/%d (%d%%)", b.n, b.total, min(b.n*100/b.total, 100))
}
