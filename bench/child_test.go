package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

func TestLagObserver(t *testing.T) {
	o := newLagObserver()
	obj := func(written int64) metav1.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{writtenAtAnnotation: formatNanos(written)}}}
	}
	o.observe(obj(time.Now().UnixNano())) // before start: ignored
	o.start()
	o.observe(obj(0))              // the creation value: ignored
	o.observe(&corev1.ConfigMap{}) // no annotation: ignored
	o.observe(obj(time.Now().Add(-time.Second).UnixNano()))
	done := make(chan []time.Duration)
	go func() {
		lags, err := o.wait(context.Background(), 2, 10*time.Second)
		if err != nil {
			t.Error(err)
		}
		done <- lags
	}()
	o.observe(obj(time.Now().UnixNano()))
	lags := <-done
	if len(lags) != 2 || lags[0] < time.Second || lags[1] >= time.Second {
		t.Errorf("lags = %v", lags)
	}
	if _, err := o.wait(context.Background(), 5, time.Millisecond); err == nil || !strings.Contains(err.Error(), "2 of 5") {
		t.Errorf("wait for more than came: %v", err)
	}
}

func TestFormatNanosKeepsWidth(t *testing.T) {
	if a, b := formatNanos(0), formatNanos(time.Now().UnixNano()); len(a) != len(b) || len(a) != 19 {
		t.Errorf("widths %d and %d", len(a), len(b))
	}
}

func TestOptions(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil || o.n != 20000 || o.size != 2048 || o.rounds != 3 || o.resource != "configmaps" || len(o.contenders) != len(contenders) ||
		o.clients != 8 || len(o.parts) != len(partNames) || !o.runs(partCRD) {
		t.Errorf("defaults = %+v, %v", o, err)
	}
	for _, args := range [][]string{
		{"-n", "0"}, {"-rounds", "0"}, {"-resource", "pods"}, {"-contenders", "ours,nope"}, {"-contenders", ","}, {"extra"},
		{"-parts", "contenders,nope"}, {"-parts", ","}, {"-clients", "0"},
	} {
		if _, err := parseOptions(args); err == nil {
			t.Errorf("parseOptions(%q) gave no error", args)
		}
	}
	if _, err := parseChildArgs([]string{"-contender=ours"}); err == nil {
		t.Error("child args without kubeconfig accepted")
	}
}

func TestPayload(t *testing.T) {
	a, b := payload(1, 2048), payload(2, 2048)
	if len(a) != 2048 || a == b || payload(1, 2048) != a {
		t.Errorf("payload: lengths %d, distinct %v, stable %v", len(a), a != b, payload(1, 2048) == a)
	}
	if objectName(7) != "obj-000007" {
		t.Errorf("objectName(7) = %s", objectName(7))
	}
}

// A -nogzip contender runs its client-go contender with compression off;
// every client-go contender of every part has one, and ours none.
func TestNoGzipContenders(t *testing.T) {
	cfg := &rest.Config{}
	if got := runAs(clientGoWatchNoGzip, cfg); got != clientGoWatch || !cfg.DisableCompression {
		t.Errorf("runAs(%s) = %s, DisableCompression %v", clientGoWatchNoGzip, got, cfg.DisableCompression)
	}
	cfg = &rest.Config{}
	if got := runAs(ours, cfg); got != ours || cfg.DisableCompression {
		t.Errorf("runAs(ours) = %s, DisableCompression %v", got, cfg.DisableCompression)
	}
	for _, part := range [][]driver.Contender{contenders, crdContenders, warmContenders} {
		names := namesOf(part)
		for _, n := range names {
			if isClientGo(n) && !strings.HasSuffix(n, noGzip) && !slices.Contains(names, n+noGzip) {
				t.Errorf("%s has no %s%s", n, n, noGzip)
			}
			if !isClientGo(n) && strings.HasSuffix(n, noGzip) {
				t.Errorf("%s: not client-go's", n)
			}
		}
	}
	for _, rows := range [][]string{serverRows, waveRows, restartRows} {
		for _, n := range rows {
			if isClientGo(n) && !strings.HasSuffix(n, noGzip) && !slices.Contains(rows, n+noGzip) {
				t.Errorf("row %s has no %s%s", n, n, noGzip)
			}
		}
	}
}
