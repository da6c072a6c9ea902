package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The one-line key summary of bench/doc.go must name every key of the
// machine-readable line, in its order: a key added to the line and not to
// the summary (issue 44's six) leaves readers of the doc without it.
func TestDocSummaryNamesEveryKey(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//\s+bench: (.*)$`).FindSubmatch(b)
	if line == nil {
		t.Fatal("doc.go has no line '//	bench: ...'")
	}
	var keys []string
	for _, f := range strings.Fields(string(line[1])) {
		k, _, _ := strings.Cut(f, "=")
		keys = append(keys, k)
	}
	if got, want := strings.Join(keys, " "), strings.Join(machineKeys, " "); got != want {
		t.Errorf("doc.go's summary names\n%s\nthe machine line's keys are\n%s", got, want)
	}
}
