package main

import (
	"io"
	"testing"
	"time"
)

// The controller sets no client-side rate limit unless asked: at client-go's
// default of 5 requests per second, the first pass over make demo's 2,001
// widgets took longer than the demo waits.
func TestQPSFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want float64
	}{
		{nil, -1},
		{[]string{"--qps", "50"}, 50},
	} {
		o, err := parseFlags(tc.args, io.Discard)
		if err != nil || o.qps != tc.want {
			t.Errorf("parseFlags(%q): qps %v, %v; want %v", tc.args, o.qps, err, tc.want)
		}
	}
}

// --shards belongs to the controller, and a replica gets a name.
func TestShardFlags(t *testing.T) {
	for _, args := range [][]string{{"--shards", "-1", "--reconcile"}, {"--shards", "4"}, {"--reconcile", "--shards", "4", "--lease-duration", "1s"},
		{"--reconcile", "--snapshot-dir", "/tmp"}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q): no error", args)
		}
	}
	o, err := parseFlags([]string{"--reconcile", "--shards", "8"}, io.Discard)
	if err != nil || o.replica == "" || o.leaseDuration != 15*time.Second {
		t.Errorf("replica %q, lease duration %s, %v", o.replica, o.leaseDuration, err)
	}
}

// --view follows widgets; the controller needs whole ones.
func TestViewFlag(t *testing.T) {
	if _, err := parseFlags([]string{"--view", "--reconcile"}, io.Discard); err == nil {
		t.Error("parseFlags(--view --reconcile): no error")
	}
	if o, err := parseFlags([]string{"--view", "--once"}, io.Discard); err != nil || !o.view {
		t.Errorf("parseFlags(--view --once): view %t, %v", o.view, err)
	}
}
