package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
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
	srv, _, widgets, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	s, err := shopsyncers.NewWidgetSyncer(srv.Config(), runtime.WithNamespace(ns))
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
	updateWidget(ctx, t, widgets, "widget-00000", func(w *shopv1alpha1.Widget) { w.Spec.Color = "green" })
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
	if got, ok := store.Get(ns, "widget-00000"); !ok || got.Spec.Color != "green" {
		t.Errorf("Get(%s, widget-00000) = %v, %v; want the green widget", ns, got, ok)
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

// The generated syncer restarted from its snapshot (JSON, as for every
// custom resource) after a widget was repainted, one deleted and one
// created while it was down: warm, with neither a WatchList nor a LIST of
// whole widgets nor a GET, the store and its indexes the server's, the
// deletion told once.
func TestWidgetSyncerRestartsWarm(t *testing.T) {
	const n = 100
	srv, _, widgets, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "widgets.snapshot")
	var requests []string // path, query and answer's media type of each request
	var mu sync.Mutex
	cfg := srv.Config()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(r *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(r)
			if err == nil {
				mu.Lock()
				what := r.URL.Path + "?" + r.URL.RawQuery
				if strings.Contains(r.Header.Get("Accept"), "as=PartialObjectMetadataList") {
					what += " (metadata only)"
				}
				requests = append(requests, what+" -> "+resp.Header.Get("Content-Type"))
				mu.Unlock()
			}
			return resp, err
		})
	})
	// run starts a syncer and waits for its sync; stop returns once Run
	// did, which saves the snapshot.
	run := func(h shopsyncers.WidgetHandler) (s *shopsyncers.WidgetSyncer, stop func()) {
		s, err := shopsyncers.NewWidgetSyncer(cfg, runtime.WithNamespace(ns), runtime.WithSnapshot(path))
		if err != nil {
			t.Fatal(err)
		}
		if h != nil {
			s.AddHandler(h)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(runCtx) }()
		var once sync.Once
		stop = func() {
			once.Do(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
			})
		}
		t.Cleanup(stop)
		if err := s.WaitForSync(ctx); err != nil {
			t.Fatalf("WaitForSync: %v", err)
		}
		return s, stop
	}
	first, stop := run(nil)
	if first.Mode() != runtime.ModeWatchList {
		t.Fatalf("first run: mode %s, want watchlist", first.Mode())
	}
	stop()
	updateWidget(ctx, t, widgets, "widget-00001", func(w *shopv1alpha1.Widget) { w.Spec.Color = "violet" })
	if err := widgets.Delete(ctx, "widget-00002"); err != nil {
		t.Fatal(err)
	}
	if _, err := widgets.Create(ctx, fixture.Widget(ns, n)); err != nil {
		t.Fatal(err)
	}

	mu.Lock()
	requests = nil
	mu.Unlock()
	var deleted []string
	s, _ := run(shopsyncers.WidgetHandlerFuncs{DeleteFunc: func(w *shopv1alpha1.Widget, how runtime.Deletion) {
		mu.Lock()
		deleted = append(deleted, w.Name+" "+how.String())
		mu.Unlock()
	}})
	if s.Mode() != runtime.ModeWarm {
		t.Errorf("mode %s, want warm", s.Mode())
	}
	if got := s.Store().ByColor("violet"); len(got) != 1 || got[0].Name != "widget-00001" {
		t.Errorf("ByColor(violet) = %v, want widget-00001", got)
	}
	if _, ok := s.Store().Get(ns, "widget-00002"); ok || s.Store().Len() != n {
		t.Errorf("store holds widget-00002 %v and %d widgets; want it gone and %d", ok, s.Store().Len(), n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(deleted) != 1 || deleted[0] != "widget-00002 inferred" {
		t.Errorf("deletions told %v, want widget-00002 once, inferred", deleted)
	}
	for _, r := range requests {
		if strings.Contains(r, "sendInitialEvents") || strings.Contains(r, "/widgets/") ||
			!strings.Contains(r, "watch=") && !strings.Contains(r, "(metadata only)") {
			t.Errorf("request %s: a warm start needs no WatchList, no GET, no LIST of whole widgets", r)
		}
	}
	t.Logf("requests of the warm start: %q", requests)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
