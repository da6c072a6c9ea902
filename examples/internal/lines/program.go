package lines

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Program is a function running on a goroutine whose output is read as
// lines: a program's run function under test, in-process.
type Program struct {
	*Reader
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
	err    error
}

// Go runs f on a goroutine with a context derived from ctx and a writer
// whose lines the returned Program reads, until f returns or Stop.
func Go(ctx context.Context, f func(ctx context.Context, out io.Writer) error) *Program {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(ctx)
	p := &Program{Reader: Read(pr, nil), cancel: cancel, done: make(chan error, 1)}
	go func() {
		p.done <- f(ctx, pw)
		pw.Close()
	}()
	return p
}

// Stop cancels f's context and returns what f returned, or an error if f
// has not returned when wait is done. Later calls return the same.
func (p *Program) Stop(wait context.Context) error {
	p.once.Do(func() {
		p.cancel()
		select {
		case p.err = <-p.done:
		case <-wait.Done():
			p.err = fmt.Errorf("did not return after its context was cancelled: %w", wait.Err())
		}
	})
	return p.err
}
