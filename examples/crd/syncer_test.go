package main

import (
	"context"
	"testing"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	shopsyncers "github.com/syncer-gen/syncer-gen/examples/crd/syncers/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/runtime"
)

// The generated syncer against the real server: every widget synced, the
// marker-declared indexes right, a live update seen and re-indexed.
func TestWidgetSyncer(t *testing.T) {
	const n = 200
	srv, _, widgets := setup(t, "shop", n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	s, err := shopsyncers.NewWidgetSyncer(srv.Config(), runtime.WithNamespace("shop"))
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan [2]*shopv1alpha1.Widget, 16)
	s.AddHandler(shopsyncers.WidgetHandlerFuncs{
		UpdateFunc: func(old, w *shopv1alpha1.Widget) { updates <- [2]*shopv1alpha1.Widget{old, w} },
	})
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if err := s.WaitForSync(ctx); err != nil {
		t.Fatalf("WaitForSync: %v", err)
	}

	store := s.Store()
	if store.Len() != n {
		t.Fatalf("store has %d widgets, want %d", store.Len(), n)
	}
	if s.Mode() != runtime.ModeWatchList {
		t.Errorf("mode %s, want watchlist on the test bed's server", s.Mode())
	}
	for k, owner := range fixture.Owners {
		assertAll(t, "ByOwner", owner, store.ByOwner(owner), fixture.CountOf(n, k, len(fixture.Owners)),
			func(w *shopv1alpha1.Widget) string { return w.Spec.Owner })
	}
	for k, color := range fixture.Colors {
		assertAll(t, "ByColor", color, store.ByColor(color), fixture.CountOf(n, k, len(fixture.Colors)),
			func(w *shopv1alpha1.Widget) string { return w.Spec.Color })
	}
	if got := store.ByOwner("nobody"); len(got) != 0 {
		t.Errorf("ByOwner(nobody) = %d widgets, want none", len(got))
	}

	// A live update: widget 0 is red; paint it green.
	w, err := widgets.Get(ctx, "widget-00000")
	if err != nil {
		t.Fatal(err)
	}
	w.Spec.Color = "green"
	if _, err := widgets.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updates:
		if u[0].Name != "widget-00000" || u[0].Spec.Color != "red" || u[1].Spec.Color != "green" {
			t.Errorf("OnUpdate(%s %s, %s %s), want widget-00000 red -> green", u[0].Name, u[0].Spec.Color, u[1].Name, u[1].Spec.Color)
		}
	case <-ctx.Done():
		t.Fatal("no OnUpdate for the color change")
	}
	red, green := fixture.CountOf(n, 0, 3), fixture.CountOf(n, 1, 3)
	assertAll(t, "ByColor", "red", store.ByColor("red"), red-1, func(w *shopv1alpha1.Widget) string { return w.Spec.Color })
	assertAll(t, "ByColor", "green", store.ByColor("green"), green+1, func(w *shopv1alpha1.Widget) string { return w.Spec.Color })
	if got, ok := store.Get("shop", "widget-00000"); !ok || got.Spec.Color != "green" {
		t.Errorf("Get(shop, widget-00000) = %v, %v; want the green widget", got, ok)
	}
}

// assertAll checks that got has want widgets, each with field == value.
func assertAll(t *testing.T, index, value string, got []*shopv1alpha1.Widget, want int, field func(*shopv1alpha1.Widget) string) {
	t.Helper()
	if len(got) != want {
		t.Errorf("%s(%s) = %d widgets, want %d", index, value, len(got), want)
	}
	for _, w := range got {
		if field(w) != value {
			t.Errorf("%s(%s) returned %s whose value is %q", index, value, w.Name, field(w))
		}
	}
}
