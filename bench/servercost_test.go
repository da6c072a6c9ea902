package main

import (
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

func TestServerTable(t *testing.T) {
	runs := []serverRun{
		{contender: clientGoList, slowest: 2, idleRSS: 300 * driver.MiB, peak: 500 * driver.MiB, cpu: 3 * time.Second, allocated: 900 * driver.MiB},
		{contender: ours, slowest: 1, idleRSS: 300 * driver.MiB, peak: 310 * driver.MiB, cpu: 1 * time.Second, allocated: 100 * driver.MiB},
		{contender: ours, slowest: 3, idleRSS: 320 * driver.MiB, peak: 350 * driver.MiB, cpu: 2 * time.Second, allocated: 200 * driver.MiB},
	}
	got := serverTable(runs, 8).String()
	for _, tc := range []struct{ row, want string }{
		// medians of two rounds; rows in serverRows' order, a row that did not run left out
		{ours, "| ours           |       8 |    2 |                             2.000 |                  310.0 |                             20.0 |       10-30 |            1.50 |                     150 |"},
		{clientGoList, "| client-go-list |       8 |    1 |                             2.000 |                  300.0 |                            200.0 |     200-200 |            3.00 |                     900 |"},
		{clientGoWatch, ""},
	} {
		var line string
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "| "+tc.row+" ") {
				line = l
			}
		}
		if line != tc.want {
			t.Errorf("row %s:\n%s\nwant:\n%s\ntable:\n%s", tc.row, line, tc.want, got)
		}
	}
	if s := summarizeServer(runs, clientGoWatch); s.runs != 0 || s.cpu == s.cpu {
		t.Errorf("a row that did not run: %+v, want NaNs", s)
	}
}
