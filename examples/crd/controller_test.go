package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	shopv1alpha1 "github.com/syncer-gen/syncer-gen/examples/crd/api/shop/v1alpha1"
	"github.com/syncer-gen/syncer-gen/examples/internal/lines"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// eventually polls f until it returns "" or the deadline passes, then fails
// with its last complaint.
func eventually(t *testing.T, d time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		msg := f()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The controller on the real server: every widget's status follows its
// spec, a change of spec is reconciled again, and /metrics tells the
// widget count and the queue handler's calls.
func TestController(t *testing.T) {
	const n = 30
	_, kubeconfig, widgets, ns := setup(t, n)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	addr := freeAddr(t)
	var stdout, stderr lines.Buffer
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"--kubeconfig", kubeconfig, "--namespace", ns, "--reconcile", "--metrics-addr", addr}, &stdout, &stderr)
	}()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v\nstderr: %s", err, stderr.String())
		}
	}()

	// Every fixture widget has an owner and a size: all become Ready.
	eventually(t, time.Minute, func() string {
		for i := range n {
			name := fmt.Sprintf("widget-%05d", i)
			w, err := widgets.Get(ctx, name)
			if err != nil {
				return err.Error()
			}
			if w.Status.Phase != "Ready" {
				return fmt.Sprintf("%s is %q, want Ready; stderr: %s", name, w.Status.Phase, stderr.String())
			}
		}
		return ""
	})

	eventually(t, 30*time.Second, func() string {
		if !strings.Contains(stdout.String(), fmt.Sprintf("reconciled %d widgets: ", n)) {
			return "no line for the first pass:\n" + stdout.String()
		}
		return ""
	})

	// Take widget 3's owner away: it goes back to Pending.
	updateWidget(ctx, t, widgets, "widget-00003", func(w *shopv1alpha1.Widget) { w.Spec.Owner = "" })
	eventually(t, time.Minute, func() string {
		w, err := widgets.Get(ctx, "widget-00003")
		if err != nil {
			return err.Error()
		}
		if w.Status.Phase != "Pending" {
			return fmt.Sprintf("widget-00003 without an owner is %q, want Pending", w.Status.Phase)
		}
		return ""
	})
	// The line comes after the status write the test has just seen.
	eventually(t, 10*time.Second, func() string {
		if !strings.Contains(stdout.String(), ns+"/widget-00003: Pending") {
			return "stdout does not report the reconcile:\n" + stdout.String()
		}
		return ""
	})

	// The scrape.
	body := scrape(t, "http://"+addr+"/metrics")
	for _, want := range []string{
		fmt.Sprintf(`syncer_objects{resource="widgets.shop.example.com/v1alpha1"} %d`, n),
		`syncer_syncs_total{mode="watchlist",resource="widgets.shop.example.com/v1alpha1"} 1`,
		`syncer_handler_latency_seconds_count{handler="queue",resource="widgets.shop.example.com/v1alpha1"}`,
		`syncer_events_total{resource="widgets.shop.example.com/v1alpha1",type="modified"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics has no %s", want)
		}
	}
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
