package testbed

import (
	"io"
	"sync"
	"time"
)

// DelayWatches holds back every byte of the watch streams it forwards for
// d, as a congested link or an overloaded server does: the client sees
// each event d after the server sent it, its writes' answers at once.
// Streams already open keep the delay they started with; 0 turns it off.
func (p *Proxy) DelayWatches(d time.Duration) { p.delay.Store(int64(max(d, 0))) }

// delayedBody forwards a stream's reads, each chunk d after it arrived.
type delayedBody struct {
	src    io.ReadCloser
	d      time.Duration
	chunks chan chunk
	left   []byte
	err    error
	closed chan struct{}
	once   sync.Once
}

type chunk struct {
	b   []byte
	at  time.Time
	err error
}

func newDelayedBody(src io.ReadCloser, d time.Duration) *delayedBody {
	b := &delayedBody{src: src, d: d, chunks: make(chan chunk, 1024), closed: make(chan struct{})}
	go b.pump()
	return b
}

// pump reads the stream as it comes, timing each chunk.
func (b *delayedBody) pump() {
	for {
		buf := make([]byte, 32<<10)
		n, err := b.src.Read(buf)
		c := chunk{b: buf[:n], at: time.Now(), err: err}
		select {
		case b.chunks <- c:
		case <-b.closed:
			return
		}
		if err != nil {
			return
		}
	}
}

func (b *delayedBody) Read(p []byte) (int, error) {
	for len(b.left) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		var c chunk
		select {
		case c = <-b.chunks:
		case <-b.closed:
			return 0, io.ErrClosedPipe
		}
		if wait := time.Until(c.at.Add(b.d)); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-b.closed:
				t.Stop()
				return 0, io.ErrClosedPipe
			}
		}
		b.left, b.err = c.b, c.err
	}
	n := copy(p, b.left)
	b.left = b.left[n:]
	return n, nil
}

func (b *delayedBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.src.Close()
}
