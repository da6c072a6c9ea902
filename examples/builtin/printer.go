package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// printer is the handler follow adds: it counts the initial sync on the
// progress bar, prints the synced line at the end of it, then one line per
// live event. A handler's calls come one at a time, on a goroutine of its
// own, so printer needs no lock, and its lines come out in the order of the events.
type printer[T runtime.Object] struct {
	out, errs io.Writer
	kind      string // e.g. "configmap"
	resource  string // e.g. "configmaps"
	live      bool   // print live events
	bar       *progress.Bar
	show      show[T]
	len       func() int
	bytes     func() int64 // what the store keeps, estimated
	mode      func() runtime.Mode
	progress  func() runtime.Progress
	started   time.Time
	synced    bool
	err       error // last OnError, for the message when the sync never completes
}

// newPrinter returns the printer of s's events; live tells whether to
// print events after the initial sync.
func newPrinter[T runtime.Object](s *runtime.Syncer[T], bar *progress.Bar, live bool, stdout, stderr io.Writer, sh show[T]) *printer[T] {
	res := s.Resource()
	return &printer[T]{
		out:      stdout,
		errs:     stderr,
		kind:     strings.ToLower(res.Kind),
		resource: res.Resource,
		live:     live,
		bar:      bar,
		show:     sh,
		len:      s.Store().Len,
		bytes:    s.Store().Bytes,
		mode:     s.Mode,
		progress: s.Progress,
		started:  time.Now(),
	}
}

var _ runtime.Handler[runtime.Object] = (*printer[runtime.Object])(nil)

func (p *printer[T]) OnResyncStarted() {
	if p.synced {
		fmt.Fprintf(p.errs, "resync of %s started\n", p.resource)
	}
}

func (p *printer[T]) OnAdd(obj T) {
	if !p.synced {
		return // the bar follows the syncer's Progress
	}
	p.event("added", obj)
}

func (p *printer[T]) OnUpdate(old, obj T) {
	if !p.synced || !p.live {
		return
	}
	if p.show.changes == nil {
		p.event("updated", obj)
		return
	}
	p.line("updated", obj, p.show.changes(old, obj))
}

func (p *printer[T]) OnDelete(obj T, _ runtime.Deletion) {
	if p.synced {
		p.event("deleted", obj)
	}
}

func (p *printer[T]) OnSync() {
	if p.synced {
		fmt.Fprintf(p.out, "resynced %d %s mode=%s\n", p.len(), p.resource, p.mode())
		return
	}
	took := time.Since(p.started)
	p.synced = true
	p.bar.Update(p.progress())
	p.bar.Finish()
	if p.show.summary != nil {
		p.show.summary(p.out)
	}
	fmt.Fprintf(p.out, "synced %d %s in %.2fs mode=%s store=%s\n", p.len(), p.resource, took.Seconds(), p.mode(), size.Format(p.bytes()))
}

func (p *printer[T]) OnError(err error) {
	p.err = err
	p.bar.Log(fmt.Sprintf("error: %v", err))
}

// event prints one live event, e.g. "added configmap demo/config-00001 keys=2".
func (p *printer[T]) event(verb string, obj T) { p.line(verb, obj, p.show.describe(obj)) }

// line prints one live event line: verb, kind, key and what.
func (p *printer[T]) line(verb string, obj T, what string) {
	if !p.live {
		return
	}
	fmt.Fprintf(p.out, "%s %s %s %s\n", verb, p.kind, runtime.KeyOf(obj), what)
}

// lastError returns " (last error: ...)" when the sync failed, or "".
func (p *printer[T]) lastError() string {
	if p.err == nil {
		return ""
	}
	return fmt.Sprintf(" (last error: %v)", p.err)
}
