package size

import (
	"fmt"
	"regexp"
	"strconv"
)

// The units Format uses, by power of 1024.
var units = []string{"B", "KiB", "MiB", "GiB", "TiB"}

// Format renders n bytes with one decimal in the largest binary unit that
// keeps the number at 1 or more: "512B", "1.5KiB", "21.4MiB".
func Format(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	return fmt.Sprintf("%.1f%s", v, units[u])
}

// Pattern matches what Format renders; a regular expression may embed it.
const Pattern = `\d+(?:\.\d)?(?:B|KiB|MiB|GiB|TiB)`

var parts = regexp.MustCompile(`^(\d+(?:\.\d)?)(B|KiB|MiB|GiB|TiB)$`)

// Parse reads what Format rendered back into bytes (to the precision it
// was rendered with).
func Parse(s string) (int64, error) {
	m := parts.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("size %q: want a number and a unit, e.g. 21.4MiB", s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	for _, u := range units {
		if u == m[2] {
			break
		}
		v *= 1024
	}
	return int64(v), nil
}
