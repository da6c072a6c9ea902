package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// printer holds the functions of the widget handler. During the initial
// sync it only moves the progress bar; at the end of it, it prints the
// synced line and the index summary; after that, one line per event.
// A handler's calls come one at a time, so it needs no lock.
type printer struct {
	out      io.Writer
	bar      *progress.Bar
	store    shopsyncers.WidgetStore
	mode     func() runtime.Mode
	progress func() runtime.Progress
	live     bool // print live events
	started  time.Time
	isSynced bool
	err      error // last error, for the message when the sync never completes
}

func (p *printer) added(w *shopv1alpha1.Widget) {
	if !p.isSynced {
		return // the bar follows the syncer's Progress
	}
	p.printf("added widget %s owner=%s color=%s size=%d phase=%s\n",
		runtime.KeyOf(w), w.Spec.Owner, w.Spec.Color, w.Spec.Size, show(w.Status.Phase))
}

func (p *printer) updated(old, w *shopv1alpha1.Widget) {
	p.printf("updated widget %s %s\n", runtime.KeyOf(w), changes(old, w))
}

func (p *printer) deleted(w *shopv1alpha1.Widget, _ runtime.Deletion) {
	p.printf("deleted widget %s\n", runtime.KeyOf(w))
}

func (p *printer) synced() {
	if p.isSynced { // after a full resync (410 Gone)
		fmt.Fprintf(p.out, "resynced %d widgets mode=%s\n", p.store.Len(), p.mode())
		return
	}
	p.isSynced = true
	p.bar.Update(p.progress())
	p.bar.Finish()
	fmt.Fprintf(p.out, "synced %d widgets in %.2fs mode=%s\n",
		p.store.Len(), time.Since(p.started).Seconds(), p.mode())
	summary(p.out, p.store)
}

func (p *printer) failed(err error) {
	p.err = err
	p.bar.Log(fmt.Sprintf("error: %v", err))
}

// printf prints a live event line, when live events are wanted.
func (p *printer) printf(format string, args ...any) {
	if p.isSynced && p.live {
		fmt.Fprintf(p.out, format, args...)
	}
}

// lastError returns " (last error: ...)" when the sync failed, or "".
func (p *printer) lastError() string {
	if p.err == nil {
		return ""
	}
	return fmt.Sprintf(" (last error: %v)", p.err)
}

// changes renders what changed between two states of a widget, e.g.
// "color=red→blue phase=\"\"→Ready".
func changes(old, w *shopv1alpha1.Widget) string {
	var c []string
	add := func(field, a, b string) {
		if a != b {
			c = append(c, fmt.Sprintf("%s=%s→%s", field, show(a), show(b)))
		}
	}
	add("owner", old.Spec.Owner, w.Spec.Owner)
	add("color", old.Spec.Color, w.Spec.Color)
	add("size", fmt.Sprint(old.Spec.Size), fmt.Sprint(w.Spec.Size))
	add("phase", old.Status.Phase, w.Status.Phase)
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
