package controller_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Switching a resource of a kubebuilder controller from the Manager's
// cache to its syncer changes a few lines of the controller file: this
// counts them, between the plain twin and the controller on syncers, so
// that the count in docs/controller-runtime.md is checked, not claimed.
// Each change is put down to the resource it switches; a line changed in
// place counts once. The only other change is the IndexField statement,
// deleted because the marker on the Job alias (examples/ctrl/kinds)
// declares the index it built.
func TestSwitchingIsAFewLines(t *testing.T) {
	plain := readLines(t, "../twin/controller/widget_controller.go")
	synced := readLines(t, "widget_controller.go")
	hunks := diff(plain, synced)

	belongs := map[string]func(line string) bool{
		"widgets": func(l string) bool {
			return strings.Contains(l, `"github.com/syncer-gen/syncer-gen/ctrlsyncer"`) || strings.Contains(l, "shopsyncers") ||
				strings.Contains(l, "For(&shopv1alpha1.Widget{})")
		},
		"jobs": func(l string) bool {
			return strings.Contains(l, "batchsyncers") || strings.Contains(l, "Owns(&batchv1.Job{})") || strings.Contains(l, "const jobOwnerKey")
		},
	}
	const maxChanged = 5
	changed := map[string]int{}
	var indexField []string
	for _, h := range hunks {
		if len(h.added) == 0 && strings.Contains(strings.Join(h.removed, "\n"), "IndexField(") {
			indexField = h.removed
			continue
		}
		for who, is := range belongs {
			changed[who] += max(count(h.added, is), count(h.removed, is))
		}
		for _, l := range append(slices.Clone(h.removed), h.added...) {
			if !belongs["widgets"](l) && !belongs["jobs"](l) {
				t.Errorf("a changed line that switches no resource: %q", l)
			}
		}
	}
	for _, who := range []string{"widgets", "jobs"} {
		if changed[who] == 0 || changed[who] > maxChanged {
			t.Errorf("switching %s changes %d lines of the controller file; want 1 to %d", who, changed[who], maxChanged)
		}
	}
	if len(indexField) == 0 || !strings.HasPrefix(strings.TrimSpace(indexField[0]), "if err := mgr.GetFieldIndexer().IndexField(") ||
		strings.TrimSpace(indexField[len(indexField)-1]) != "}" {
		t.Errorf("the IndexField statement is not deleted whole: %q", indexField)
	}
	t.Logf("switching widgets changes %d lines, jobs %d lines, and the IndexField statement (%d lines) is deleted", changed["widgets"], changed["jobs"], len(indexField))
}

// count returns how many of lines is says yes to.
func count(lines []string, is func(string) bool) int {
	n := 0
	for _, l := range lines {
		if is(l) {
			n++
		}
	}
	return n
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// hunk is a run of lines removed from a and added in b at one place.
type hunk struct{ removed, added []string }

// diff returns the hunks that turn a into b, from a longest common
// subsequence of their lines.
func diff(a, b []string) []hunk {
	// lcs[i][j] is the length of a longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []hunk
	var cur hunk
	flush := func() {
		if len(cur.removed)+len(cur.added) > 0 {
			out = append(out, cur)
		}
		cur = hunk{}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			i, j = i+1, j+1
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			cur.added = append(cur.added, b[j])
			j++
		default:
			cur.removed = append(cur.removed, a[i])
			i++
		}
	}
	flush()
	return out
}
