package testbed

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Request is a request the proxy forwarded, as RecordRequests keeps it.
type Request struct {
	Method    string
	Path      string
	Query     url.Values
	Accept    string // the request's Accept header
	UserAgent string
	Time      time.Time // when the proxy received it
	// Status and ContentType are the response's; Bytes the bytes of its
	// body forwarded so far (a watch's grow while it is open).
	Status      int
	ContentType string
	Bytes       int64
}

// Watch tells whether the request is a watch (a WatchList too).
func (r Request) Watch() bool { return r.Query.Get("watch") == "1" || r.Query.Get("watch") == "true" }

// Resource returns the resource the request names, e.g. "configmaps" for
// /api/v1/namespaces/ns/configmaps/x or "widgets" for
// /apis/shop.example.com/v1alpha1/widgets; "" when it names none.
func (r Request) Resource() string {
	parts := strings.Split(strings.Trim(r.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return ""
	}
	if len(parts) >= 2 && parts[0] == "namespaces" {
		if len(parts) == 2 {
			return "namespaces"
		}
		parts = parts[2:]
	}
	return parts[0]
}

// record is a request being forwarded.
type record struct {
	req         Request
	status      atomic.Int64
	contentType atomic.Pointer[string]
	bytes       atomic.Int64
}

// requestLog holds what RecordRequests records.
type requestLog struct {
	on       atomic.Bool
	mu       sync.Mutex
	requests []*record
}

// RecordRequests makes the proxy record every request it forwards from
// now on (see Requests); off stops recording and forgets what it holds.
func (p *Proxy) RecordRequests(on bool) {
	p.log.on.Store(on)
	if !on {
		p.log.mu.Lock()
		p.log.requests = nil
		p.log.mu.Unlock()
	}
}

// Requests returns the requests recorded so far, in the order they came.
func (p *Proxy) Requests() []Request {
	p.log.mu.Lock()
	defer p.log.mu.Unlock()
	out := make([]Request, len(p.log.requests))
	for i, r := range p.log.requests {
		out[i] = r.req
		out[i].Status = int(r.status.Load())
		if ct := r.contentType.Load(); ct != nil {
			out[i].ContentType = *ct
		}
		out[i].Bytes = r.bytes.Load()
	}
	return out
}

// RefuseMetadata makes the proxy answer 406 Not Acceptable, as a server
// that cannot convert objects does, to every request that asks for
// PartialObjectMetadata (an Accept with as=PartialObjectMetadata or
// as=PartialObjectMetadataList), and counts them (MetadataRefused).
func (p *Proxy) RefuseMetadata(on bool) { p.refuseMetadata.Store(on) }

// MetadataRefused returns how many requests RefuseMetadata refused.
func (p *Proxy) MetadataRefused() int64 { return p.metadataRefused.Load() }

// asksMetadata tells whether r asks for PartialObjectMetadata.
func asksMetadata(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadata")
}

// recorded starts the record of r, when recording, and returns the writer
// that fills it in.
func (p *Proxy) recorded(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	if !p.log.on.Load() {
		return w
	}
	rec := &record{req: Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Accept: r.Header.Get("Accept"), UserAgent: r.UserAgent(), Time: time.Now()}}
	p.log.mu.Lock()
	p.log.requests = append(p.log.requests, rec)
	p.log.mu.Unlock()
	return &recordingWriter{ResponseWriter: w, rec: rec}
}

// recordingWriter counts what goes through it into its record.
type recordingWriter struct {
	http.ResponseWriter
	rec *record
}

func (w *recordingWriter) WriteHeader(code int) {
	w.rec.status.Store(int64(code))
	ct := w.Header().Get("Content-Type")
	w.rec.contentType.Store(&ct)
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.rec.status.Load() == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.rec.bytes.Add(int64(n))
	return n, err
}

// Unwrap lets the reverse proxy flush through the wrapper.
func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// AsksFor returns what the request's Accept asks the server to convert
// objects to (its as= parameter: "PartialObjectMetadata",
// "PartialObjectMetadataList", "Table"), "" for whole objects. Every
// media type of the header must ask for the same, or the answer is
// "mixed".
func (r Request) AsksFor() string {
	as, first := "", true
	for _, clause := range strings.Split(r.Accept, ",") {
		got := ""
		for _, p := range strings.Split(clause, ";")[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "as="); ok {
				got = v
			}
		}
		if !first && got != as {
			return "mixed"
		}
		as, first = got, false
	}
	return as
}
