package testbed

// CutStreamsAfter makes the proxy end every watch stream it forwards once
// n bytes of its body have gone through, as a proxy with a response size
// limit or a connection that breaks mid-transfer does: the client sees its
// connection closed mid-event. A size, not an age, so that the cut falls at
// the same place on a fast machine and a slow one. Streams already open
// keep the limit they started with; 0 turns it off.
func (p *Proxy) CutStreamsAfter(n int64) {
	p.cutAfter.Store(max(n, 0))
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
