package testbed

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
)

// StallWatches makes every watch stream open now forward nothing more,
// silently: the connection stays open (HTTP/2 pings answered), the client
// sees no error and no event, as behind a half-open connection or a proxy
// that stopped forwarding. Streams opened later are not touched. It
// returns how many streams it stalled.
func (p *Proxy) StallWatches() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.stallers {
		s.Store(true)
	}
	p.stalls.Add(int64(len(p.stallers)))
	return len(p.stallers)
}

// Stalled returns how many streams StallWatches stalled.
func (p *Proxy) Stalled() int64 { return p.stalls.Load() }

// stallingWriter forwards a watch stream until it is stalled, then holds
// every write until the request ends.
type stallingWriter struct {
	http.ResponseWriter
	ctx     context.Context
	stalled *atomic.Bool
}

func (w *stallingWriter) Write(b []byte) (int, error) {
	if w.stalled.Load() {
		<-w.ctx.Done()
		return 0, errStalled
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets the reverse proxy flush through the wrapper.
func (w *stallingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var errStalled = errors.New("watch stream stalled by the test proxy")
