package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

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
