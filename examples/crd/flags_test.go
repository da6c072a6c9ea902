package main

import (
	"io"
	"testing"
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
