package driver

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Table is a markdown table whose columns are padded to line up on a
// terminal too. The first column is left-aligned, the others right-aligned.
type Table struct {
	Header []string
	rows   [][]string
}

func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *Table) String() string {
	widths := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.rows...) {
		for i, c := range row {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c), 3)
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, w := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			pad := strings.Repeat(" ", w-utf8.RuneCountInString(c))
			if i == 0 {
				b.WriteString(" " + c + pad + " |")
			} else {
				b.WriteString(" " + pad + c + " |")
			}
		}
		b.WriteString("\n")
	}
	line(t.Header)
	b.WriteString("|")
	for i, w := range widths {
		if i == 0 {
			b.WriteString(" " + strings.Repeat("-", w) + " |")
		} else {
			b.WriteString(" " + strings.Repeat("-", w-1) + ": |")
		}
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	return b.String()
}

// Num formats x with the given decimals, or "-" when it is NaN.
func Num(x float64, decimals int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.*f", decimals, x)
}

// Times formats a ratio as "1.03x", or "-".
func Times(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", x)
}

// Fixed2 formats a ratio for the machine-readable line: two decimals, or "nan".
func Fixed2(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "nan"
	}
	return fmt.Sprintf("%.2f", x)
}
