package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
	"github.com/syncer-gen/syncer-gen/examples/internal/size"
	"github.com/syncer-gen/syncer-gen/internal/testbed"
)

// Deadlines of the waits on the examples' output.
const (
	syncDeadline  = 3 * time.Minute  // the initial sync of thousands of objects
	eventDeadline = 30 * time.Second // one live event
	exitDeadline  = 15 * time.Second // a clean exit after SIGINT
)

// builtinSynced is examples/builtin's synced line: how many objects of
// which resource, in how long, how, and the bytes its store keeps.
var builtinSynced = regexp.MustCompile(`^synced (\d+) (\w+) in (\d+\.\d\d)s mode=(watchlist|list|warm) store=(` + size.Pattern + `)$`)

// synced is what examples/builtin said in its synced line.
type synced struct {
	objects int
	took    time.Duration
	mode    string
	store   int64 // Store().Bytes()
}

// launch starts the example name with args and shows its command line.
func (d *demo) launch(name string, args ...string) (*child, error) {
	d.ui.info("$ %s", commandLine(name, args))
	c, err := start(name, d.bins[name], args, d.ui.out, d.ui.err)
	if err != nil {
		return nil, err
	}
	d.children = append(d.children, c)
	return c, nil
}

// runBuiltin runs examples/builtin --once, saving a snapshot, and checks
// its last line.
func (d *demo) runBuiltin(ctx context.Context) error {
	mode, err := d.builtinOnce(ctx, d.o.configMaps)
	if err != nil {
		return err
	}
	d.ui.ok("exited 0; its last line counts the %d ConfigMaps created, mode=%s; snapshot saved", d.o.configMaps, mode)
	return nil
}

// runBuiltinWarm changes, deletes and creates 1% of the ConfigMaps, then
// runs examples/builtin --once again from its snapshot.
func (d *demo) runBuiltinWarm(ctx context.Context) error {
	n := max(1, d.o.configMaps/100)
	if _, err := testbed.ChurnConfigMaps(ctx, d.srv.Client(), d.o.namespace, n); err != nil {
		return err
	}
	d.ui.ok("%d ConfigMaps changed, %d deleted, %d created while it was not running", n, n, n)
	mode, err := d.builtinOnce(ctx, d.o.configMaps)
	if err != nil {
		return err
	}
	if mode != "warm" {
		return fmt.Errorf("builtin synced in mode %s, want warm (from its snapshot)", mode)
	}
	d.ui.ok("exited 0; mode=warm: only what changed was fetched")
	return nil
}

// builtinOnce runs examples/builtin --once with its snapshot, checks that
// its last line counts want ConfigMaps and returns the mode it names.
func (d *demo) builtinOnce(ctx context.Context, want int) (string, error) {
	s, err := d.builtinSynced(ctx, "configmaps", want, "--snapshot", filepath.Join(d.dir, "configmaps.snapshot"))
	return s.mode, err
}

// builtinSynced runs examples/builtin --once --resource resource with
// args, waits for it to exit 0 and reads its last line, which must count
// want objects; it returns what that line says.
func (d *demo) builtinSynced(ctx context.Context, resource string, want int, args ...string) (synced, error) {
	c, err := d.launch("builtin", append([]string{"--kubeconfig", d.kubeconfig, "--namespace", d.o.namespace, "--resource", resource}, append(args, "--once")...)...)
	if err != nil {
		return synced{}, err
	}
	if err := c.wait(ctx, syncDeadline); err != nil {
		return synced{}, err
	}
	out := c.out.Lines()
	if len(out) == 0 {
		return synced{}, fmt.Errorf("builtin printed nothing on stdout")
	}
	return parseSynced(out[len(out)-1], want)
}

// builtinPeak runs examples/builtin --resource resource with args until it
// has synced, reads its peak RSS while it still runs (the process's own:
// see child.peakRSS), then interrupts it, which must end it cleanly; its
// synced line must count want objects.
func (d *demo) builtinPeak(ctx context.Context, resource string, want int, args ...string) (synced, int64, error) {
	c, err := d.launch("builtin", append([]string{"--kubeconfig", d.kubeconfig, "--namespace", d.o.namespace, "--resource", resource}, args...)...)
	if err != nil {
		return synced{}, 0, err
	}
	line, err := c.expect(ctx, syncDeadline, `^synced `)
	if err != nil {
		return synced{}, 0, err
	}
	s, err := parseSynced(line, want)
	if err != nil {
		return s, 0, err
	}
	rss, err := c.peakRSS()
	if err != nil {
		return s, 0, err
	}
	return s, rss, c.interrupt(ctx, exitDeadline)
}

// parseSynced reads examples/builtin's synced line, which must count want
// objects.
func parseSynced(line string, want int) (synced, error) {
	var s synced
	m := builtinSynced.FindStringSubmatch(line)
	if m == nil {
		return s, fmt.Errorf("builtin's line %q does not match %s", line, builtinSynced)
	}
	s.objects, _ = strconv.Atoi(m[1])
	if s.objects != want {
		return s, fmt.Errorf("builtin synced %d %s, want %d", s.objects, m[2], want)
	}
	took, _ := strconv.ParseFloat(m[3], 64)
	s.took = time.Duration(took * float64(time.Second))
	s.mode = m[4]
	var err error
	s.store, err = size.Parse(m[5])
	return s, err
}

// runCRD runs examples/crd live, changes widgets and waits for each event.
func (d *demo) runCRD(ctx context.Context) error {
	widgets, err := fixture.NewWidgets(d.srv.Config(), d.o.namespace)
	if err != nil {
		return err
	}
	c, err := d.launch("crd", "--kubeconfig", d.kubeconfig, "--namespace", d.o.namespace)
	if err != nil {
		return err
	}
	ns := d.o.namespace
	if _, err := c.expect(ctx, syncDeadline, fmt.Sprintf(`^synced %d widgets in \d+\.\d\ds mode=`, d.o.widgets)); err != nil {
		return err
	}
	if _, err := c.expect(ctx, eventDeadline, `^by color: `); err != nil {
		return err
	}

	// Each change, and the line the example must print for it.
	newWidget := func(name, owner, color string) *shopv1alpha1.Widget {
		w := fixture.Widget(ns, 0)
		w.Name, w.Spec.Owner, w.Spec.Color, w.Spec.Size = name, owner, color, 5
		return w
	}
	var w1, w2 *shopv1alpha1.Widget
	changes := []struct {
		what   string
		do     func() error
		expect string
	}{
		{"create widget live-1 (alice, red)", func() (err error) {
			w1, err = widgets.Create(ctx, newWidget("live-1", "alice", "red"))
			return err
		}, `^added widget ` + ns + `/live-1 owner=alice color=red size=5 phase=""$`},
		{"create widget live-2 (bob, blue)", func() (err error) {
			w2, err = widgets.Create(ctx, newWidget("live-2", "bob", "blue"))
			return err
		}, `^added widget ` + ns + `/live-2 owner=bob color=blue size=5 phase=""$`},
		{"paint live-1 green", func() (err error) {
			w1.Spec.Color = "green"
			_, err = widgets.Update(ctx, w1)
			return err
		}, `^updated widget ` + ns + `/live-1 color=red→green$`},
		{"mark live-2 Ready (status subresource)", func() (err error) {
			w2.Status.Phase = "Ready"
			_, err = widgets.UpdateStatus(ctx, w2)
			return err
		}, `^updated widget ` + ns + `/live-2 phase=""→Ready$`},
		{"delete live-1", func() error { return widgets.Delete(ctx, "live-1") },
			`^deleted widget ` + ns + `/live-1$`},
	}
	for _, ch := range changes {
		d.ui.action("%s", ch.what)
		if err := ch.do(); err != nil {
			return fmt.Errorf("%s: %w", ch.what, err)
		}
		if _, err := c.expect(ctx, eventDeadline, ch.expect); err != nil {
			return err
		}
	}
	d.ui.action("interrupt crd (SIGINT)")
	if err := c.interrupt(ctx, exitDeadline); err != nil {
		return err
	}
	d.ui.ok("each of the %d changes printed live; crd exited 0 on SIGINT", len(changes))
	return nil
}
