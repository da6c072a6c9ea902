package child

import (
	"fmt"
	"maps"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Probe counts, during the steady state, what shows a contender's watch
// restarting and its slow handler falling behind:
//   - every LIST or WATCH request on the resource, seen in the transport of
//     every contender (client-go's reflector says nothing else when it
//     restarts a watch);
//   - for our syncer, through its runtime.Metrics (see the ours program):
//     Reconnected and Relisted with their reasons (Restart), and the slow
//     handler's largest queue depth (Depth).
type Probe struct {
	on       atomic.Bool
	plural   string
	requests atomic.Int64
	maxDepth atomic.Int64
	mu       sync.Mutex
	reasons  map[string]int
	kinds    map[string]int // the requests counted, by requestKind
}

func newProbe(plural string) *Probe {
	return &Probe{plural: plural, reasons: map[string]int{}, kinds: map[string]int{}}
}

// requestKind tells what a LIST or WATCH request of the resource asks for:
// "watchlist" (the whole selection streamed), "watch" (changes from a
// resourceVersion), "metadata-list" (a warm start's names and versions),
// "get" (a LIST of one name, a warm start's fetch under a selector) or
// "list" (the whole selection).
func requestKind(req *http.Request) string {
	q := req.URL.Query()
	switch {
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		if q.Get("sendInitialEvents") == "true" {
			return "watchlist"
		}
		return "watch"
	case strings.Contains(req.Header.Get("Accept"), "as=PartialObjectMetadataList"):
		return "metadata-list"
	case strings.Contains(q.Get("fieldSelector"), "metadata.name="):
		return "get"
	}
	return "list"
}

// requestKinds returns the requests counted, by kind.
func (p *Probe) requestKinds() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.kinds)
}

func (p *Probe) start() { p.on.Store(true) }

// wrap is a rest.Config WrapTransport that counts the resource's LIST and
// WATCH requests.
func (p *Probe) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if p.on.Load() && req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/"+p.plural) {
			p.requests.Add(1)
			p.mu.Lock()
			p.kinds[requestKind(req)]++
			p.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// Restart counts a restart of our syncer's watch: what it did
// ("reconnected", "relisted") and why.
func (p *Probe) Restart(what, reason string) {
	if !p.on.Load() {
		return
	}
	p.mu.Lock()
	p.reasons[what+":"+reason]++
	p.mu.Unlock()
}

// Depth notes a depth of the slow handler's queue.
func (p *Probe) Depth(depth int) {
	if !p.on.Load() {
		return
	}
	for d := int64(depth); ; {
		m := p.maxDepth.Load()
		if d <= m || p.maxDepth.CompareAndSwap(m, d) {
			return
		}
	}
}

// restarts returns the number of Reconnected and Relisted calls and their
// reasons, e.g. "reconnected:closed-early=1".
func (p *Probe) restarts() (int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	var parts []string
	for k, v := range p.reasons {
		n += v
		parts = append(parts, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(parts)
	return n, strings.Join(parts, " ")
}
