package args

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// A header's " YEAR" is filled as controller-gen fills it with its year=
// argument: with --year, else with the current year (deepcopy-gen's
// default); a YEAR within a word, or the header's other text, is kept.
func TestHeaderFillsTheYear(t *testing.T) {
	file := filepath.Join(t.TempDir(), "boilerplate.go.txt")
	const text = "/*\nCopyright YEAR The Shop Authors.\nNot YEARLY.\n*/\n"
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	now := strconv.Itoa(time.Now().UTC().Year())
	for _, tc := range []struct{ year, want string }{
		{"", "/*\nCopyright " + now + " The Shop Authors.\nNot YEARLY.\n*/"},
		{"2024", "/*\nCopyright 2024 The Shop Authors.\nNot YEARLY.\n*/"},
	} {
		a := Args{GoHeaderFile: file, Year: tc.year}
		got, err := a.Header()
		if err != nil || got != tc.want {
			t.Errorf("Header with --year %q: %q, %v; want %q", tc.year, got, err, tc.want)
		}
	}
}
