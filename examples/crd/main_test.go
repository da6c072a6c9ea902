package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/crd/config/crd"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

func TestMain(m *testing.M) { os.Exit(testbed.Main(m)) }

// setup starts (or reuses) the server, installs the CRD and fills a
// namespace of this run's own (testbed's Namespace) with n widgets. It
// returns the server, a kubeconfig for it, a widgets client for the
// namespace and its name.
func setup(t *testing.T, n int) (*testbed.Server, string, *fixture.Widgets, string) {
	t.Helper()
	srv := testbed.Shared(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := srv.WriteKubeconfig(kubeconfig); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := crd.Install(ctx, srv.Config(), 30*time.Second); err != nil {
		t.Fatal(err)
	}
	ns := srv.Namespace(t)
	widgets, err := fixture.NewWidgets(srv.Config(), ns)
	if err != nil {
		t.Fatal(err)
	}
	if err := fixture.CreateWidgets(ctx, widgets, ns, n, 8, nil); err != nil {
		t.Fatal(err)
	}
	return srv, kubeconfig, widgets, ns
}

// updateWidget reads the widget name, changes it and writes it back.
func updateWidget(ctx context.Context, t *testing.T, widgets *fixture.Widgets, name string, change func(*shopv1alpha1.Widget)) {
	t.Helper()
	w, err := widgets.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	change(w)
	if _, err := widgets.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
}

// want returns the summary line run prints for n widgets of fixture.Widget.
func want(label string, values []string, n int) string {
	var parts []string
	for k, v := range values {
		parts = append(parts, fmt.Sprintf("%s=%d", v, fixture.CountOf(n, k, len(values))))
	}
	slices.Sort(parts)
	return label + ": " + strings.Join(parts, " ")
}

func TestRunOnce(t *testing.T) {
	const n = 30
	_, kubeconfig, _, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var stdout, stderr bytes.Buffer
	// --install-crd again: applying the CRD twice is fine.
	err := run(ctx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--install-crd", "--once"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(got) != 3 {
		t.Fatalf("stdout has %d lines, want 3:\n%s", len(got), stdout.String())
	}
	if !regexp.MustCompile(`^synced 30 widgets in \d+\.\d\ds mode=watchlist store=` + size.Pattern + `$`).MatchString(got[0]) {
		t.Errorf("line 1 = %q, want synced 30 widgets in ...s mode=watchlist store=...", got[0])
	}
	if w := want("by owner", fixture.Owners, n); got[1] != w {
		t.Errorf("line 2 = %q, want %q", got[1], w)
	}
	if w := want("by color", fixture.Colors, n); got[2] != w {
		t.Errorf("line 3 = %q, want %q", got[2], w)
	}
	if w := "syncing widgets: 30/30 (100%) done in "; !strings.Contains(stderr.String(), w) {
		t.Errorf("stderr has no %q:\n%s", w, stderr.String())
	}
}

func TestRunLive(t *testing.T) {
	_, kubeconfig, widgets, ns := setup(t, 5)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	var stderr bytes.Buffer
	out := lines.Go(ctx, func(ctx context.Context, w io.Writer) error {
		return run(ctx, []string{"--kubeconfig", kubeconfig, "--namespace", ns}, w, &stderr)
	})
	defer out.Stop(ctx)
	expect := func(pattern string) {
		t.Helper()
		if _, err := out.Wait(ctx, regexp.MustCompile(pattern)); err != nil {
			t.Fatal(err)
		}
	}

	expect(`^synced 5 widgets in \d+\.\d\ds mode=watchlist store=` + size.Pattern + `$`)
	w := fixture.Widget(ns, 100) // alice, green, size 1
	w, err := widgets.Create(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	expect(`^added widget ` + ns + `/widget-00100 owner=alice color=green size=1 phase=""$`)
	w.Spec.Color, w.Spec.Size = "red", 3
	if w, err = widgets.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	expect(`^updated widget ` + ns + `/widget-00100 color=green→red size=1→3$`)
	w.Status.Phase = "Ready"
	if _, err = widgets.UpdateStatus(ctx, w); err != nil {
		t.Fatal(err)
	}
	expect(`^updated widget ` + ns + `/widget-00100 phase=""→Ready$`)
	if err := widgets.Delete(ctx, w.Name); err != nil {
		t.Fatal(err)
	}
	expect(`^deleted widget ` + ns + `/widget-00100$`)

	if err := out.Stop(ctx); err != nil {
		t.Fatalf("run after cancel: %v", err)
	}
}
