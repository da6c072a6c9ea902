package main

import (
	"bytes"
	"strings"
	"testing"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func widget(name, owner, color, rv string) *shopv1alpha1.Widget {
	return &shopv1alpha1.Widget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, ResourceVersion: rv},
		Spec:       shopv1alpha1.WidgetSpec{Owner: owner, Color: color, Size: 2},
	}
}

// The example's handler on a syncer fed by NewWidgetDriver: no server.
func TestPrinterWithWidgetDriver(t *testing.T) {
	s, d := shopsyncers.NewWidgetDriver()
	var out, errs bytes.Buffer
	p := newPrinter(s.Syncer, s.Store(), readWidget, &out, progress.New(&errs, "syncing widgets", 3, progress.WithTerminal(false)), true)
	s.AddHandler(p.handler())

	d.Add(widget("a", "alice", "red", "1"), widget("b", "alice", "blue", "2"), widget("c", "bob", "red", "3"))
	if out.Len() != 0 {
		t.Fatalf("printed during the initial sync:\n%s", out.String())
	}
	d.Sync()
	synced := s.Store().Bytes()
	if got := len(s.Store().ByOwner("alice")); got != 2 {
		t.Errorf("ByOwner(alice) = %d widgets, want 2", got)
	}
	if got := len(s.Store().ByColor("red")); got != 2 {
		t.Errorf("ByColor(red) = %d widgets, want 2", got)
	}

	b := widget("b", "bob", "blue", "4")
	b.Status.Phase = "Sold"
	d.Update(b)
	d.Update(widget("b", "bob", "blue", "3")) // older than what is stored: dropped
	d.Add(widget("d", "carol", "green", "5"))
	d.Delete(widget("a", "alice", "red", "6"))
	if got := len(s.Store().ByOwner("alice")); got != 0 {
		t.Errorf("ByOwner(alice) after the changes = %d widgets, want 0", got)
	}
	if got := len(s.Store().ByOwner("bob")); got != 2 {
		t.Errorf("ByOwner(bob) after the changes = %d widgets, want 2", got)
	}

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		"", // synced line, checked below
		"by owner: alice=2 bob=1",
		"by color: blue=1 red=2",
		`updated widget shop/b owner=alice→bob phase=""→Sold`,
		`added widget shop/d owner=carol color=green size=2 phase=""`,
		"deleted widget shop/a",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want), out.String())
	}
	if !strings.HasPrefix(lines[0], "synced 3 widgets in ") || !strings.HasSuffix(lines[0], "s mode=list store="+size.Format(synced)) {
		t.Errorf("line 1 = %q, want synced 3 widgets in ...s mode=list store=%s", lines[0], size.Format(synced))
	}
	for i := 1; i < len(want); i++ {
		if lines[i] != want[i] {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want[i])
		}
	}
	if !strings.Contains(errs.String(), "syncing widgets: 3/3 (100%) done in ") {
		t.Errorf("progress on stderr:\n%s", errs.String())
	}
}

func TestChangesMetadataOnly(t *testing.T) {
	a := widget("a", "alice", "red", "1")
	b := widget("a", "alice", "red", "2")
	b.Labels = map[string]string{"x": "y"}
	if got := changes(readWidget(a), readWidget(b)); got != "metadata only" {
		t.Errorf("changes = %q, want metadata only", got)
	}
}

// The printer on a WidgetViewSyncer fed the projections of the same
// widgets prints what it prints on whole widgets, line for line (the
// timing and store of the synced line aside).
func TestPrinterWithWidgetViewDriver(t *testing.T) {
	ws, wd := shopsyncers.NewWidgetDriver()
	vs, vd := shopsyncers.NewWidgetViewDriver()
	var wout, vout bytes.Buffer
	ws.AddHandler(newPrinter(ws.Syncer, ws.Store(), readWidget, &wout, progress.New(&bytes.Buffer{}, "", 0), true).handler())
	vs.AddHandler(newPrinter(vs.Syncer, vs.Store(), readView, &vout, progress.New(&bytes.Buffer{}, "", 0), true).handler())
	play := func(op string, w *shopv1alpha1.Widget) {
		v := shopsyncers.WidgetViewFrom(w)
		switch op {
		case "add":
			wd.Add(w)
			vd.Add(v)
		case "update":
			wd.Update(w)
			vd.Update(v)
		case "delete":
			wd.Delete(w)
			vd.Delete(v)
		}
	}

	play("add", widget("a", "alice", "red", "1"))
	play("add", widget("b", "bob", "blue", "2"))
	wd.Sync()
	vd.Sync()
	play("add", widget("c", "carol", "green", "3"))
	b := widget("b", "dave", "red", "4")
	b.Spec.Size, b.Status.Phase = 7, "Ready"
	play("update", b)
	b = b.DeepCopy()
	b.ResourceVersion, b.Labels = "5", map[string]string{"x": "y"} // not in the view
	play("update", b)
	play("delete", widget("a", "alice", "red", "6"))

	got, want := timing.ReplaceAllString(vout.String(), "in Xs $1"), timing.ReplaceAllString(wout.String(), "in Xs $1")
	if got != want {
		t.Errorf("on WidgetViews:\n%s\non Widgets:\n%s", got, want)
	}
	for _, line := range []string{`updated widget shop/b owner=bob→dave color=blue→red size=2→7 phase=""→Ready`, "updated widget shop/b metadata only", "deleted widget shop/a"} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("no line %q in\n%s", line, got)
		}
	}
}
