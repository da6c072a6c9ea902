package testbed

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
)

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

// DropWatchEvent makes the proxy drop, once, the next watch event of type
// typ (ADDED, MODIFIED or DELETED) of an object named name, as a proxy or
// a server that loses one event does: the client never learns of that
// change from its watch. Each call arms one drop. Watch streams opened
// while a drop is armed are forced to JSON (for this, the filter reads
// them line by line); only those can lose the event, so arm it before the
// watch that is to lose it opens.
func (p *Proxy) DropWatchEvent(typ, name string) { p.DropWatchEventOf("", typ, name) }

// DropWatchEventOf is DropWatchEvent in the watch streams of the clients
// whose User-Agent starts with userAgent alone (e.g. "syncer-gen/"): one
// client loses the event, the others get it.
func (p *Proxy) DropWatchEventOf(userAgent, typ, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drops = append(p.drops, &eventDrop{typ: typ, name: name, userAgent: userAgent})
}

// EventsDropped returns how many watch events DropWatchEvent's drops have
// dropped.
func (p *Proxy) EventsDropped() int64 { return p.eventsDropped.Load() }

// HoldWatchEvent makes the proxy hold back, once, the next watch event of
// type typ of an object named name whose JSON contains with ("" for any),
// and the rest of its stream behind it, until release is called (or the
// proxy closes), as a slow link does to one event: the client's store
// stays just before that event, as long as the test needs. Like
// DropWatchEvent, it forces the streams opened while it is armed to JSON,
// and only those can hold the event: arm it before the watch opens.
// release may be called more than once.
func (p *Proxy) HoldWatchEvent(typ, name, with string) (release func()) {
	h := &eventDrop{typ: typ, name: name, with: with, hold: make(chan struct{})}
	var once sync.Once
	release = func() { once.Do(func() { close(h.hold) }) }
	h.release = release
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drops = append(p.drops, h)
	return release
}

// eventDrop is one armed DropWatchEvent, or HoldWatchEvent when hold is
// not nil.
type eventDrop struct {
	typ, name string
	with      string        // the event's line contains it
	userAgent string        // the stream's client's User-Agent starts with it
	hold      chan struct{} // closed by release; nil for a drop
	release   func()
	done      atomic.Bool
}

// releaseHolds lets every held event through (the proxy closes).
func (p *Proxy) releaseHolds() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.drops {
		if d.release != nil {
			d.release()
		}
	}
}

// dropping tells whether a DropWatchEvent is armed and has not fired.
func (p *Proxy) dropping() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, d := range p.drops {
		if !d.done.Load() {
			return true
		}
	}
	return false
}

// dropEvent tells whether the watch event of line is one to drop, and
// counts it; it holds the line back first where a HoldWatchEvent says to.
func (p *Proxy) dropEvent(line []byte, userAgent string) bool {
	var ev struct {
		Type   string `json:"type"`
		Object struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		} `json:"object"`
	}
	if json.Unmarshal(line, &ev) != nil {
		return false
	}
	p.mu.Lock()
	var hold chan struct{}
	for _, d := range p.drops {
		if d.typ == ev.Type && d.name == ev.Object.Metadata.Name && bytes.Contains(line, []byte(d.with)) &&
			strings.HasPrefix(userAgent, d.userAgent) && d.done.CompareAndSwap(false, true) {
			if d.hold == nil {
				p.mu.Unlock()
				p.eventsDropped.Add(1)
				return true
			}
			hold = d.hold
			break
		}
	}
	p.mu.Unlock()
	if hold != nil {
		<-hold
	}
	return false
}
