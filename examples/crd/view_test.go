package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
)

// timing is what differs between the synced lines of two runs: the time
// and the bytes their stores keep.
var (
	timing  = regexp.MustCompile(`in \d+\.\d\ds (mode=\w+) store=` + size.Pattern)
	storeIs = regexp.MustCompile(`store=(` + size.Pattern + `)`)
)

// --view --once prints what the run on whole widgets prints: the same
// count, the same mode (WatchList: the projection reads the
// initial-events-end bookmark as the full syncer does) and the same
// summary from the view's indexes; but its store keeps less.
func TestRunViewOnce(t *testing.T) {
	const n = 40
	_, kubeconfig, _, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	outputs, stores := map[string]string{}, map[string]int64{}
	for _, view := range []bool{false, true} {
		args := []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--once"}
		if view {
			args = append(args, "--view")
		}
		var stdout, stderr bytes.Buffer
		if err := run(ctx, args, &stdout, &stderr); err != nil {
			t.Fatalf("run %q: %v\nstderr:\n%s", args, err, stderr.String())
		}
		outputs[strings.Join(args[4:], " ")] = timing.ReplaceAllString(stdout.String(), "in Xs $1")
		m := storeIs.FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("no store= in\n%s", stdout.String())
		}
		b, err := size.Parse(m[1])
		if err != nil {
			t.Fatal(err)
		}
		stores[strings.Join(args[4:], " ")] = b
	}
	// What the view does not keep: managedFields, most of metadata (these
	// widgets have little else: 455 B against 727 B each when written).
	if whole, view := stores["--once"], stores["--once --view"]; view <= 0 || float64(view) > 0.8*float64(whole) {
		t.Errorf("the view's store keeps %s, whole widgets %s: want at most 0.8x", size.Format(view), size.Format(whole))
	}
	whole, view := outputs["--once"], outputs["--once --view"]
	if view != whole {
		t.Errorf("--view printed\n%s\nwhole widgets\n%s", view, whole)
	}
	want := "synced 40 widgets in Xs mode=watchlist\n" + want("by owner", fixture.Owners, n) + "\n" + want("by color", fixture.Colors, n) + "\n"
	if view != want {
		t.Errorf("--view printed\n%s\nwant\n%s", view, want)
	}
}

// The program on WidgetViews and on whole widgets, live side by side: each
// change prints the same line on both, a change to what the view does not
// keep (a label) included.
func TestRunViewLive(t *testing.T) {
	_, kubeconfig, widgets, ns := setup(t, 6)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	programs := map[string]*lines.Program{}
	for _, name := range []string{"whole", "view"} {
		args := []string{"--kubeconfig", kubeconfig, "--namespace", ns}
		if name == "view" {
			args = append(args, "--view")
		}
		p := lines.Go(ctx, func(ctx context.Context, w io.Writer) error { return run(ctx, args, w, io.Discard) })
		defer p.Stop(ctx)
		programs[name] = p
	}
	expect := func(pattern string) {
		t.Helper()
		for name, p := range programs {
			if _, err := p.Wait(ctx, regexp.MustCompile(pattern)); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}

	expect(`^synced 6 widgets in \d+\.\d\ds mode=watchlist store=`)
	w, err := widgets.Create(ctx, fixture.Widget(ns, 9)) // bob, red, size 10
	if err != nil {
		t.Fatal(err)
	}
	expect(`^added widget ` + ns + `/widget-00009 owner=bob color=red size=10 phase=""$`)
	w.Spec.Owner, w.Spec.Size = "carol", 2
	if w, err = widgets.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	expect(`^updated widget ` + ns + `/widget-00009 owner=bob→carol size=10→2$`)
	w.Status.Phase = "Sold"
	if w, err = widgets.UpdateStatus(ctx, w); err != nil {
		t.Fatal(err)
	}
	expect(`^updated widget ` + ns + `/widget-00009 phase=""→Sold$`)
	updateWidget(ctx, t, widgets, w.Name, func(w *shopv1alpha1.Widget) { w.Labels = map[string]string{"aisle": "7"} })
	expect(`^updated widget ` + ns + `/widget-00009 metadata only$`)
	if err := widgets.Delete(ctx, w.Name); err != nil {
		t.Fatal(err)
	}
	expect(`^deleted widget ` + ns + `/widget-00009$`)

	got := map[string]string{}
	for name, p := range programs {
		if err := p.Stop(ctx); err != nil {
			t.Fatalf("%s after cancel: %v", name, err)
		}
		<-p.Done()
		got[name] = timing.ReplaceAllString(strings.Join(p.Lines(), "\n"), "in Xs $1")
	}
	if got["view"] != got["whole"] {
		t.Errorf("--view printed\n%s\nwhole widgets\n%s", got["view"], got["whole"])
	}
}
