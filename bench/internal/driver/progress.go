package driver

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progress shows how far a long step is: redrawn in place on a terminal,
// a line at every quarter otherwise.
type progress struct {
	w        io.Writer
	what     string
	total    int
	done     atomic.Int64
	terminal bool
	started  time.Time
	stop     chan struct{}
	stopped  chan struct{}
}

func StartProgress(what string, total int) *progress {
	p := &progress{w: os.Stderr, what: what, total: total, started: time.Now(),
		terminal: term.IsTerminal(int(os.Stderr.Fd())), stop: make(chan struct{}), stopped: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progress) Add(n int) { p.done.Add(int64(n)) }

func (p *progress) loop() {
	defer close(p.stopped)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	quarter := 0
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			n := int(p.done.Load())
			switch {
			case p.terminal:
				fmt.Fprintf(p.w, "\r\033[K%s", p.line(n))
			case p.total > 0 && n*4/p.total > quarter:
				quarter = n * 4 / p.total
				fmt.Fprintln(p.w, p.line(n))
			}
		}
	}
}

func (p *progress) line(n int) string {
	el := time.Since(p.started)
	return fmt.Sprintf("%s %d/%d (%.0f/s, %s)", p.what, n, p.total, float64(n)/el.Seconds(), el.Round(100*time.Millisecond))
}

// Finish stops the display and prints the final count.
func (p *progress) Finish() {
	close(p.stop)
	<-p.stopped
	if p.terminal {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintln(p.w, p.line(int(p.done.Load())))
}
