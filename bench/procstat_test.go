package main

import (
	"strings"
	"testing"
)

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tbench\nVmPeak:\t 1300000 kB\nVmHWM:\t  123456 kB\nVmRSS:\t  100000 kB\n"
	got, err := parseVmHWM(strings.NewReader(status))
	if err != nil || got != 123456*1024 {
		t.Errorf("parseVmHWM = %d, %v; want %d", got, err, 123456*1024)
	}
	for _, bad := range []string{
		"Name:\tbench\n",
		"VmHWM:\t 12 MB\n",
		"VmHWM:\t x kB\n",
		"VmHWM:\n",
	} {
		if _, err := parseVmHWM(strings.NewReader(bad)); err == nil {
			t.Errorf("parseVmHWM(%q) gave no error", bad)
		}
	}
}

func TestVmHWMOfSelf(t *testing.T) {
	got, err := vmHWM()
	if err != nil || got <= 0 {
		t.Errorf("vmHWM() = %d, %v", got, err)
	}
	if cpuTime() <= 0 {
		t.Errorf("cpuTime() is not positive")
	}
}
