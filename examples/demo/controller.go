package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"

	"github.com/syncer-gen/syncer-gen/examples/internal/fixture"
)

// runController runs examples/crd --reconcile: it sets every widget's
// status, then reacts to a change of spec; its /metrics is scraped.
func (d *demo) runController(ctx context.Context) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	c, err := d.launch("crd", "--kubeconfig", d.kubeconfig, "--namespace", d.o.namespace, "--reconcile", "--metrics-addr", addr)
	if err != nil {
		return err
	}
	if _, err := c.expect(ctx, syncDeadline, fmt.Sprintf(`^reconciled %d widgets: \d+ status writes, \d+ retries$`, d.o.widgets+1)); err != nil {
		return err
	}
	d.ui.ok("every widget has a status.phase")

	widgets, err := fixture.NewWidgets(d.srv.Config(), d.o.namespace)
	if err != nil {
		return err
	}
	d.ui.action("take widget-00000's owner away")
	w, err := widgets.Get(ctx, "widget-00000")
	if err != nil {
		return err
	}
	w.Spec.Owner = ""
	if _, err := widgets.Update(ctx, w); err != nil {
		return err
	}
	if _, err := c.expect(ctx, eventDeadline, `^`+d.o.namespace+`/widget-00000: Pending$`); err != nil {
		return err
	}

	d.ui.action("scrape http://%s/metrics", addr)
	body, err := scrape(ctx, "http://"+addr+"/metrics")
	if err != nil {
		return err
	}
	objects := regexp.MustCompile(`(?m)^syncer_objects\{resource="widgets.shop.example.com/v1alpha1"\} \d+$`).FindString(body)
	if objects == "" {
		return fmt.Errorf("/metrics has no syncer_objects for widgets:\n%s", body)
	}
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "syncer_syncs_total") || strings.HasPrefix(l, "syncer_objects") ||
			strings.HasPrefix(l, "syncer_handler_latency_seconds_count") {
			d.ui.info("  %s", l)
		}
	}
	d.ui.action("interrupt crd --reconcile (SIGINT)")
	if err := c.interrupt(ctx, exitDeadline); err != nil {
		return err
	}
	d.ui.ok("the controller reconciled the change and served %s", objects)
	return nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func scrape(ctx context.Context, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("scrape: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("scrape %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b), nil
}
