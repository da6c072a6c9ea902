package size

import "testing"

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0B"}, {1023, "1023B"}, {1024, "1.0KiB"}, {1536, "1.5KiB"},
		{21_438_912, "20.4MiB"}, {3 << 30, "3.0GiB"}, {5 << 40, "5.0TiB"}, {5 << 50, "5120.0TiB"},
	} {
		if got := Format(c.n); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

// Parse gives back what Format rendered, within its rounding (half a tenth
// of the unit).
func TestParseInvertsFormat(t *testing.T) {
	for _, n := range []int64{0, 7, 1023, 1024, 1_500, 1_048_576, 21_438_912, 7 << 30} {
		s := Format(n)
		got, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		unit := int64(1)
		for unit*1024 <= n {
			unit *= 1024
		}
		if d := max(got-n, n-got); d > unit/20 {
			t.Errorf("Parse(Format(%d)) = Parse(%q) = %d", n, s, got)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "12", "MiB", "1.25MiB", "1.5 MiB", "-3B", "1.5kB"} {
		if n, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %d, no error", s, n)
		}
	}
}
