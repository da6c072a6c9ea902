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

// printer holds the functions of the widget handler, for whole widgets
// (T *Widget) or their projection (T *WidgetView, --view): it reads them
// through read, so that both print the same lines but for the bytes their
// stores keep. During the initial sync it only moves the progress bar; at
// the end of it, it prints the synced line and the index summary; after
// that, one line per event. A handler's calls come one at a time, so it
// needs no lock.
type printer[T runtime.Object] struct {
	out      io.Writer
	bar      *progress.Bar
	store    widgetStore[T]
	read     func(T) fields
	mode     func() runtime.Mode
	progress func() runtime.Progress
	live     bool // print live events
	started  time.Time
	isSynced bool
	err      error // last error, for the message when the sync never completes
}

// newPrinter returns the printer of s's widgets; live tells whether to
// print events after the initial sync.
func newPrinter[T runtime.Object](s *runtime.Syncer[T], store widgetStore[T], read func(T) fields, out io.Writer, bar *progress.Bar, live bool) *printer[T] {
	return &printer[T]{out: out, bar: bar, store: store, read: read, mode: s.Mode, progress: s.Progress, live: live, started: time.Now()}
}

// handler returns the printer's functions as the syncer's handler.
func (p *printer[T]) handler() runtime.HandlerFuncs[T] {
	return runtime.HandlerFuncs[T]{AddFunc: p.added, UpdateFunc: p.updated, DeleteFunc: p.deleted, SyncFunc: p.synced, ErrorFunc: p.failed}
}

func (p *printer[T]) added(obj T) {
	if !p.isSynced {
		return // the bar follows the syncer's Progress
	}
	w := p.read(obj)
	p.printf("added widget %s owner=%s color=%s size=%d phase=%s\n", runtime.KeyOf(obj), w.owner, w.color, w.size, show(w.phase))
}

func (p *printer[T]) updated(old, obj T) {
	p.printf("updated widget %s %s\n", runtime.KeyOf(obj), changes(p.read(old), p.read(obj)))
}

func (p *printer[T]) deleted(obj T, _ runtime.Deletion) {
	p.printf("deleted widget %s\n", runtime.KeyOf(obj))
}

func (p *printer[T]) synced() {
	if p.isSynced { // after a full resync (410 Gone)
		fmt.Fprintf(p.out, "resynced %d widgets mode=%s\n", p.store.Len(), p.mode())
		return
	}
	p.isSynced = true
	p.bar.Update(p.progress())
	p.bar.Finish()
	fmt.Fprintf(p.out, "synced %d widgets in %.2fs mode=%s store=%s\n",
		p.store.Len(), time.Since(p.started).Seconds(), p.mode(), size.Format(p.store.Bytes()))
	summary(p.out, p.store, p.read)
}

func (p *printer[T]) failed(err error) {
	p.err = err
	p.bar.Log(fmt.Sprintf("error: %v", err))
}

// printf prints a live event line, when live events are wanted.
func (p *printer[T]) printf(format string, args ...any) {
	if p.isSynced && p.live {
		fmt.Fprintf(p.out, format, args...)
	}
}

// lastError returns " (last error: ...)" when the sync failed, or "".
func (p *printer[T]) lastError() string {
	if p.err == nil {
		return ""
	}
	return fmt.Sprintf(" (last error: %v)", p.err)
}

// changes renders what changed between two states of a widget, e.g.
// "color=red→blue phase=\"\"→Ready".
func changes(old, w fields) string {
	var c []string
	add := func(field, a, b string) {
		if a != b {
			c = append(c, fmt.Sprintf("%s=%s→%s", field, show(a), show(b)))
		}
	}
	add("owner", old.owner, w.owner)
	add("color", old.color, w.color)
	add("size", fmt.Sprint(old.size), fmt.Sprint(w.size))
	add("phase", old.phase, w.phase)
	if len(c) == 0 {
		return "metadata only"
	}
	return strings.Join(c, " ")
}

func show(s string) string {
	if s == "" {
		return `""`
	}
	return s
}
