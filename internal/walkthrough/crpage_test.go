package walkthrough

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs/controller-runtime.md's step 1 shows the files a kubebuilder
// project adds, with their sizes, and its count on the tutorial repeats
// them: the sizes are those of the snippets shown, the go:generate line
// names the package of the aliases (with ./api/... alone, no syncer of
// Jobs is generated), and the count says the same. Issue 42, defect 12.
func TestControllerRuntimePageCountsItsSnippets(t *testing.T) {
	b, err := os.ReadFile("../../docs/controller-runtime.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, f := range []struct{ file, must string }{
		{"internal/kinds/kinds.go", "+syncer-gen"},
		{"generate.go", "./internal/kinds"},
	} {
		m := regexp.MustCompile("`" + regexp.QuoteMeta(f.file) + "`[^\n]*?, (\\d+) lines").FindStringSubmatchIndex(page)
		if m == nil {
			t.Fatalf("step 1 gives no size of %s", f.file)
		}
		n, _ := strconv.Atoi(page[m[2]:m[3]])
		rest := page[m[1]:]
		start := strings.Index(rest, "```go\n")
		end := strings.Index(rest[start+6:], "```")
		if start < 0 || end < 0 {
			t.Fatalf("no snippet of %s after its size", f.file)
		}
		lines := len(strings.Split(strings.TrimRight(rest[start+6:start+6+end], " \n"), "\n"))
		if lines != n {
			t.Errorf("%s: the page says %d lines, its snippet has %d", f.file, n, lines)
		}
		if !strings.Contains(rest[start:start+6+end], f.must) {
			t.Errorf("%s: the snippet lacks %q", f.file, f.must)
		}
		row := regexp.MustCompile("`" + regexp.QuoteMeta(f.file) + "` \\((\\d+) lines").FindStringSubmatch(page)
		if row == nil || row[1] != strconv.Itoa(n) {
			t.Errorf("%s: the count on the tutorial says %v lines, step 1 %d", f.file, row, n)
		}
	}
}
