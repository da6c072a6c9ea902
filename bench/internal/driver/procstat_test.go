package driver

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseStatusBytes(t *testing.T) {
	status := "Name:\tbench\nVmPeak:\t 1300000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n"
	for _, tc := range []struct {
		status, field string
		want          int64 // -1: an error
	}{
		{status, "VmHWM", 123456 << 10},
		{status, "VmRSS", 100000 << 10},
		{status, "VmSwap", -1},
		{"VmHWM:\t 12 MB\n", "VmHWM", -1},
		{"VmHWM:\t x kB\n", "VmHWM", -1},
		{"VmHWM:\n", "VmHWM", -1},
	} {
		got, err := parseStatusBytes(strings.NewReader(tc.status), tc.field)
		if tc.want < 0 && err == nil || tc.want >= 0 && (err != nil || got != tc.want) {
			t.Errorf("parseStatusBytes(%q, %s) = %d, %v; want %d", tc.status, tc.field, got, err, tc.want)
		}
	}
}

func TestVmHWMOfSelf(t *testing.T) {
	got, err := VmHWM()
	if err != nil || got <= 0 {
		t.Errorf("vmHWM() = %d, %v", got, err)
	}
	if rss, err := StatusBytes(strconv.Itoa(os.Getpid()), "VmRSS"); err != nil || rss <= 0 {
		t.Errorf("VmRSS of self = %d, %v", rss, err)
	}
	if err := ResetHWM(os.Getpid()); err != nil {
		t.Errorf("resetHWM(self): %v", err)
	}
	if CPUTime() <= 0 {
		t.Errorf("cpuTime() is not positive")
	}
}
