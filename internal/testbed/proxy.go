package testbed

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// Proxy sits between a client and the test bed's kube-apiserver and
// misbehaves on demand, as aggregated API servers and proxies do.
type Proxy struct {
	srv    *httptest.Server
	target *Server

	stripWatchList  atomic.Bool
	dropBookmark    atomic.Bool
	paused          atomic.Bool
	refuseMetadata  atomic.Bool
	metadataRefused atomic.Int64
	log             requestLog

	mu       sync.Mutex
	streams  map[*http.Request]func()       // open watch streams and how to cut them
	stallers map[*http.Request]*atomic.Bool // open watch streams and whether each is stalled (StallWatches)
	stalls   atomic.Int64
	watches  atomic.Int64
	cutAfter atomic.Int64 // bytes; 0 = streams are not cut by size
	cuts     atomic.Int64 // streams ended by the proxy
	dropped  atomic.Int64 // initial-events-end bookmarks dropped
	delay    atomic.Int64 // a time.Duration: how long watch streams are held back

	drops         []*eventDrop // armed by DropWatchEvent; guarded by mu
	eventsDropped atomic.Int64
}

// StartProxy starts a proxy in front of s, stopped when the test ends.
func StartProxy(t testing.TB, s *Server) *Proxy {
	t.Helper()
	p := NewProxy(s)
	t.Cleanup(p.Close)
	return p
}

// NewProxy starts a proxy in front of s, for programs that are not tests
// (the benchmark): Close stops it.
func NewProxy(s *Server) *Proxy {
	u, _ := url.Parse(s.URL())
	p := &Proxy{target: s, streams: map[*http.Request]func(){}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	rp.FlushInterval = -1
	rp.ModifyResponse = p.modifyResponse
	rp.ErrorLog = nil
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.serve(rp, w, r)
	}))
	return p
}

// StripWatchList removes sendInitialEvents and resourceVersionMatch from
// every request, as some proxies do: the server then answers a WatchList
// request as a plain watch and never sends the initial-events-end bookmark.
func (p *Proxy) StripWatchList(on bool) { p.stripWatchList.Store(on) }

// DropInitialEventsBookmark removes the initial-events-end bookmark from
// watch streams (they are forced to JSON for this).
func (p *Proxy) DropInitialEventsBookmark(on bool) { p.dropBookmark.Store(on) }

// Pause cuts every open watch stream and answers 503 to every request
// until Resume.
func (p *Proxy) Pause() {
	p.paused.Store(true)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cut := range p.streams {
		cut()
	}
}

// Resume lets requests through again.
func (p *Proxy) Resume() { p.paused.Store(false) }

// Watches returns how many watch requests have been forwarded.
func (p *Proxy) Watches() int64 { return p.watches.Load() }

// Config returns an admin client configuration that goes through the proxy.
func (p *Proxy) Config() *rest.Config {
	c := p.target.Config()
	c.Host = p.srv.URL
	return c
}

// Close stops the proxy and cuts its streams.
func (p *Proxy) Close() {
	p.releaseHolds()
	p.Pause()
	p.srv.CloseClientConnections()
	p.srv.Close()
}

func (p *Proxy) serve(rp *httputil.ReverseProxy, w http.ResponseWriter, r *http.Request) {
	w = p.recorded(w, r)
	if p.paused.Load() {
		http.Error(w, "paused by the test proxy", http.StatusServiceUnavailable)
		return
	}
	if p.refuseMetadata.Load() && asksMetadata(r) {
		p.metadataRefused.Add(1)
		http.Error(w, "the test proxy refuses PartialObjectMetadata", http.StatusNotAcceptable)
		return
	}
	q := r.URL.Query()
	watching := q.Get("watch") == "1" || q.Get("watch") == "true"
	if p.stripWatchList.Load() {
		q.Del("sendInitialEvents")
		q.Del("resourceVersionMatch")
		r.URL.RawQuery = q.Encode()
	}
	if watching && (p.dropBookmark.Load() || p.dropping()) {
		// JSON lines, uncompressed (1.37 gzips WatchList streams): the
		// filter reads the stream line by line.
		r.Header.Set("Accept", "application/json")
		r.Header.Set("Accept-Encoding", "identity")
	}
	if !watching {
		rp.ServeHTTP(w, r)
		return
	}
	p.watches.Add(1)
	ctx, cancel := context.WithCancel(r.Context())
	r = r.WithContext(ctx)
	var once sync.Once
	cut := func() { once.Do(func() { p.cuts.Add(1); cancel() }) }
	stalled := new(atomic.Bool)
	p.mu.Lock()
	p.streams[r] = cut
	if p.stallers == nil {
		p.stallers = map[*http.Request]*atomic.Bool{}
	}
	p.stallers[r] = stalled
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.streams, r)
		delete(p.stallers, r)
		p.mu.Unlock()
		cancel()
	}()
	w = &stallingWriter{ResponseWriter: w, ctx: ctx, stalled: stalled}
	if n := p.cutAfter.Load(); n > 0 {
		w = &cuttingWriter{ResponseWriter: w, left: n, cut: cut}
	}
	rp.ServeHTTP(w, r)
}

// cuttingWriter ends a watch stream once it has forwarded its share of
// bytes (see CutStreamsAfter).
type cuttingWriter struct {
	http.ResponseWriter
	left int64
	cut  func()
}

func (w *cuttingWriter) Write(b []byte) (int, error) {
	if w.left <= 0 {
		return 0, errCut
	}
	if int64(len(b)) > w.left {
		b = b[:w.left]
	}
	n, err := w.ResponseWriter.Write(b)
	if w.left -= int64(n); w.left <= 0 {
		w.cut()
		if err == nil {
			err = errCut
		}
	}
	return n, err
}

// Unwrap lets the reverse proxy flush through the wrapper.
func (w *cuttingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

var errCut = errors.New("watch stream cut by the test proxy")

func (p *Proxy) modifyResponse(resp *http.Response) error {
	q := resp.Request.URL.Query()
	if q.Get("watch") != "1" && q.Get("watch") != "true" {
		return nil
	}
	if bookmarks := p.dropBookmark.Load(); bookmarks || p.dropping() {
		resp.Body = &lineFilter{r: bufio.NewReader(resp.Body), c: resp.Body, drop: func(line []byte) bool {
			if bookmarks && bytes.HasPrefix(line, []byte(`{"type":"BOOKMARK"`)) && bytes.Contains(line, []byte("k8s.io/initial-events-end")) {
				p.dropped.Add(1)
				return true
			}
			return p.dropEvent(line, resp.Request.UserAgent())
		}}
	}
	if d := time.Duration(p.delay.Load()); d > 0 {
		resp.Body = newDelayedBody(resp.Body, d)
	}
	return nil
}

// lineFilter drops the JSON lines (watch events) that drop says to.
type lineFilter struct {
	r    *bufio.Reader
	c    io.Closer
	left []byte
	drop func(line []byte) bool
}

func (f *lineFilter) Read(b []byte) (int, error) {
	for len(f.left) == 0 {
		line, err := f.r.ReadBytes('\n')
		if !f.drop(line) {
			f.left = line
		}
		if err != nil {
			if len(f.left) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(b, f.left)
	f.left = f.left[n:]
	return n, nil
}

func (f *lineFilter) Close() error { return f.c.Close() }
