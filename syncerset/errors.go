package syncerset

import (
	"fmt"
	"strings"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// NotSyncedError is what WaitForSync returns when its context ends before
// every syncer has synced.
type NotSyncedError struct {
	// Total is the number of syncers in the set.
	Total int
	// Resources are the syncers that have not synced, in the order added.
	Resources []NotSynced
	// Cause is the context's error.
	Cause error
}

// NotSynced is one syncer that has not synced, and why.
type NotSynced struct {
	// Resource names it, e.g. "widgets.shop.example.com/v1alpha1".
	Resource string
	// Err is its last failure, nil if none yet (it is still receiving).
	Err *runtime.SyncError
	// Progress is how far its initial sync has come.
	Progress runtime.Progress
	// HandlersBehind: the store synced, but a handler has not yet
	// received the whole snapshot.
	HandlersBehind bool
}

// Error names each resource with the reason it has not synced, e.g.
// "syncerset: 1 of 2 resources not synced (context deadline exceeded):
// widgets.shop.example.com/v1alpha1: not-found: the server does not serve
// it (is its CRD installed?): ...".
func (e *NotSyncedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "syncerset: %d of %d resources not synced (%v)", len(e.Resources), e.Total, e.Cause)
	for i, n := range e.Resources {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(n.String())
	}
	return b.String()
}

// Unwrap returns the context's error and each syncer's last failure, so
// that errors.Is(err, context.DeadlineExceeded) and errors.As(err,
// &syncErr) work.
func (e *NotSyncedError) Unwrap() []error {
	errs := []error{e.Cause}
	for _, n := range e.Resources {
		if n.Err != nil {
			errs = append(errs, n.Err)
		}
	}
	return errs
}

// String tells why one resource has not synced.
func (n NotSynced) String() string {
	switch {
	case n.HandlersBehind:
		return n.Resource + ": synced, but its handlers are still receiving the snapshot"
	case n.Err == nil:
		return n.Resource + ": no failure yet, still receiving: " + progress(n.Progress)
	}
	s := n.Resource + ": " + n.Err.Kind.String()
	if hint := hints[n.Err.Kind]; hint != "" {
		s += ": " + hint
	}
	return s + ": " + n.Err.Err.Error()
}

// hints say in words what a kind of failure means for a set's user.
var hints = map[runtime.ErrorKind]string{
	runtime.KindForbidden:    "RBAC does not allow list and watch",
	runtime.KindUnauthorized: "the server rejects the credentials",
	runtime.KindNotFound:     "the server does not serve it (is its CRD installed? does the namespace exist?)",
	runtime.KindThrottled:    "the server is throttling requests (429)",
	runtime.KindNoBookmark:   "the WatchList stream sent no initial-events-end bookmark (a proxy or an aggregated server?); completing with a LIST",
	runtime.KindUnavailable:  "the server cannot be reached or closed the stream",
	runtime.KindTimeout:      "a request timed out",
	runtime.KindExpired:      "its resourceVersion was compacted; relisting",
	runtime.KindUndecodable:  "an object its Go type cannot decode (does the CRD's schema accept what the type refuses?); the others sync without it",
}

func progress(p runtime.Progress) string {
	switch {
	case p.Started.IsZero():
		return "not started (was the set started?)"
	case p.Estimate >= 0:
		return fmt.Sprintf("%d of about %d objects in %s", p.Received, p.Estimate, p.Elapsed().Round(1e6))
	}
	return fmt.Sprintf("%d objects in %s", p.Received, p.Elapsed().Round(1e6))
}
