package testbed

import "time"

// CutStreamsAfter makes the proxy end every watch stream it forwards d
// after the stream started, as a load balancer with a maximum stream
// duration does; streams already open keep the limit they started with.
// 0 turns it off. The client sees its connection closed mid-stream.
func (p *Proxy) CutStreamsAfter(d time.Duration) {
	if d < 0 {
		d = 0
	}
	p.cutAfter.Store(int64(d))
}

// CutAll ends every open watch stream now; unlike Pause, the next requests
// go through.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cut := range p.streams {
		cut()
	}
}

// StreamsCut returns how many watch streams the proxy has ended by itself
// (Pause, CutAll, CutStreamsAfter); streams that the client or the server
// ended are not counted.
func (p *Proxy) StreamsCut() int64 { return p.cuts.Load() }

// BookmarksDropped returns how many initial-events-end bookmarks the proxy
// has dropped (see DropInitialEventsBookmark).
func (p *Proxy) BookmarksDropped() int64 { return p.dropped.Load() }
