package driver

import (
	"math"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tb := &Table{Header: []string{"name", "value"}}
	tb.Add("a", "1.5")
	tb.Add("longer", "12")
	want := "" +
		"| name   | value |\n" +
		"| ------ | ----: |\n" +
		"| a      |   1.5 |\n" +
		"| longer |    12 |\n"
	if got := tb.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableShortColumnsAndRows(t *testing.T) {
	tb := &Table{Header: []string{"x", "y"}}
	tb.Add("only")
	lines := strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		if len(l) != len(lines[0]) {
			t.Errorf("ragged line %q", l)
		}
	}
	if lines[2] != "| only |     |" {
		t.Errorf("missing cell not padded: %q", lines[2])
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Num(1.23456, 3), "1.235"},
		{Num(math.NaN(), 1), "-"},
		{Times(0.8), "0.80x"},
		{Times(math.Inf(1)), "-"},
		{Fixed2(1.005), "1.00"},
		{Fixed2(1.236), "1.24"},
		{Fixed2(math.NaN()), "nan"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
