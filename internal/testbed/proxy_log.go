package testbed

import (
	"net/http"
	"strings"
)

// Request is what the proxy saw of one request it forwarded.
type Request struct {
	Method    string
	Path      string // e.g. /api/v1/namespaces/ns/configmaps
	Watch     bool
	UserAgent string
}

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

// Requests returns the requests the proxy forwarded, in the order they came.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.requests...)
}

func (p *Proxy) log(r *http.Request, watching bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, Request{Method: r.Method, Path: r.URL.Path, Watch: watching, UserAgent: r.UserAgent()})
}
