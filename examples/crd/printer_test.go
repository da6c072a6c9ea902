package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/progress"
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
	p := &printer{
		out:      &out,
		bar:      progress.New(&errs, "syncing widgets", 3, progress.WithTerminal(false)),
		store:    s.Store(),
		mode:     s.Mode,
		progress: s.Progress,
		live:     true,
		started:  time.Now(),
	}
	s.AddHandler(shopsyncers.WidgetHandlerFuncs{
		AddFunc: p.added, UpdateFunc: p.updated, DeleteFunc: p.deleted, SyncFunc: p.synced, ErrorFunc: p.failed,
	})

	d.Add(widget("a", "alice", "red", "1"), widget("b", "alice", "blue", "2"), widget("c", "bob", "red", "3"))
	if out.Len() != 0 {
		t.Fatalf("printed during the initial sync:\n%s", out.String())
	}
	d.Sync()
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
	if !strings.HasPrefix(lines[0], "synced 3 widgets in ") || !strings.HasSuffix(lines[0], "s mode=list") {
		t.Errorf("line 1 = %q, want synced 3 widgets in ...s mode=list", lines[0])
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
	if got := changes(a, b); got != "metadata only" {
		t.Errorf("changes = %q, want metadata only", got)
	}
}
