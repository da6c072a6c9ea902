package runtime

import (
	"context"
	"errors"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
)

// The requests of a lag probe (lag.go).

// probeWatchTimeout is the timeout a probe's watch asks for: kube-apiserver's
// watch cache sends a watch with a deadline a bookmark two seconds before
// it (its pre-timeout bookmark), at its current resourceVersion: after a
// second here, the least a timeout in whole seconds allows.
const probeWatchTimeout = 3 * time.Second

// serverRV returns the resourceVersion the server is at now: that of a
// consistent LIST of one item of the Syncer's selection (etcd's revision,
// moved by writes to any resource).
func (s *source[T]) serverRV(ctx context.Context) (string, error) {
	page, _, err := s.listOne(ctx, true)
	if err != nil {
		return "", err
	}
	lm, err := meta.ListAccessor(page)
	if err != nil {
		return "", err
	}
	return lm.GetResourceVersion(), nil
}

// errInconclusive: a probe's watch ended before it could tell.
var errInconclusive = errors.New("the probe's watch ended before a bookmark at or past the server's resourceVersion")

// lastChange tells the resourceVersion of the last change of the
// Syncer's selection after from and at or before to: "" when there was
// none. It watches from from, with a short timeout: the server sends
// every event after from at once, then a bookmark at its current
// resourceVersion; an event or a bookmark past to ends the question.
func (s *source[T]) lastChange(ctx context.Context, from, to string) (string, error) {
	opts := s.listOptions()
	opts.Watch = true
	opts.AllowWatchBookmarks = true
	opts.ResourceVersion = from
	w, err := s.openFor(ctx, opts, probeWatchTimeout)
	if err != nil {
		return "", err
	}
	defer w.stop()
	last := ""
	for {
		ev, err := w.next()
		var rv string
		if bad := asUndecodable(err); bad != nil { // its resourceVersion is all that counts
			ev.Type, rv, err = bad.event, bad.ResourceVersion, nil
		}
		switch {
		case err == io.EOF:
			return "", errInconclusive
		case err != nil:
			return "", err
		case ev.Type == watch.Error:
			return "", eventError(ev)
		case rv == "":
			o, ok := ev.Object.(interface{ GetResourceVersion() string })
			if !ok {
				return "", unexpectedObject(ev)
			}
			rv = o.GetResourceVersion()
		}
		past, err := compareVersions(rv, to)
		if err != nil {
			return "", err
		}
		if past > 0 || past == 0 && ev.Type == watch.Bookmark {
			return last, nil
		}
		if ev.Type != watch.Bookmark {
			last = rv
		}
	}
}
