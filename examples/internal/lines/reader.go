package lines

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Reader collects the lines of an io.Reader as they come.
type Reader struct {
	mu      sync.Mutex
	lines   []string
	next    int           // index of the first line Wait has not consumed
	changed chan struct{} // closed and replaced at each new line and at the end
	err     error         // why reading ended, once it has; io.EOF for a clean end
	done    chan struct{}
}

// Read starts reading r in a goroutine until it ends. echo, when not nil,
// is called with each line as it is read (to show a child's output).
func Read(r io.Reader, echo func(line string)) *Reader {
	l := &Reader{changed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			if echo != nil {
				echo(line)
			}
			l.mu.Lock()
			l.lines = append(l.lines, line)
			l.notify()
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.err = sc.Err()
		if l.err == nil {
			l.err = io.EOF
		}
		l.notify()
		l.mu.Unlock()
		close(l.done)
	}()
	return l
}

func (l *Reader) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Wait returns the first line after the last one Wait returned that
// matches re, waiting for it until ctx is done or the input ends. Lines it
// skips are consumed, so successive Waits expect lines in order.
func (l *Reader) Wait(ctx context.Context, re *regexp.Regexp) (string, error) {
	for {
		l.mu.Lock()
		for l.next < len(l.lines) {
			line := l.lines[l.next]
			l.next++
			if re.MatchString(line) {
				l.mu.Unlock()
				return line, nil
			}
		}
		changed, end := l.changed, l.err
		l.mu.Unlock()
		if end != nil {
			return "", fmt.Errorf("no line matching %q before the output ended%s", re, l.tail())
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("no line matching %q: %w%s", re, context.Cause(ctx), l.tail())
		case <-changed:
		}
	}
}

// Lines returns every line read so far.
func (l *Reader) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Done is closed when the input has ended and every line is collected.
func (l *Reader) Done() <-chan struct{} { return l.done }

// tail returns the last lines read, for error messages.
func (l *Reader) tail() string {
	lines := l.Lines()
	if len(lines) == 0 {
		return " (no output)"
	}
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return "; last lines:\n\t" + strings.Join(lines, "\n\t")
}
