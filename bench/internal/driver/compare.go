package driver

import (
	"fmt"
	"math"
	"strings"
)

// MedianTable is the table of each contender's medians.
func MedianTable(ss []Summary) *Table {
	t := &Table{Header: []string{"contender", "runs", "objects", "time to synced s", "min-max s",
		"idle peak RSS MiB", "peak RSS at sync MiB", "peak RssAnon MiB", "peak RSS at exit MiB", "allocated MiB",
		"CPU s / 1k events", "lag p50 ms", "lag p99 ms"}}
	for _, s := range ss {
		t.Add(s.Contender, fmt.Sprint(s.Runs), Num(s.Objects, 0), Num(s.SyncSeconds, 3),
			Num(s.SyncMin, 2)+"-"+Num(s.SyncMax, 2),
			Num(s.IdleMiB, 1), Num(s.HWMSyncMiB, 1), Num(s.AnonMiB, 1), Num(s.hwmExitMiB, 1), Num(s.AllocMiB, 0),
			Num(s.CPUPer1k, 3), Num(s.LagP50ms, 1), Num(s.LagP99ms, 1))
	}
	return t
}

// Comparison is one ratio of ours to a reference, with its target.
type Comparison struct {
	Key    string // name in the machine-readable line; "" for none
	What   string
	Value  float64
	Target float64 // NaN: shown for context, no target
	Strict bool    // target is "<", not "<="
	Count  bool    // value is a count, not a ratio
	Secs   bool    // value is in seconds, not a ratio
	MiB    bool    // value is in MiB, not a ratio
}

// text formats the value for the ratio table.
func (c Comparison) text() string {
	switch {
	case c.Count:
		return Num(c.Value, 0)
	case c.Secs:
		return Num(c.Value, 2) + " s"
	case c.MiB:
		return Num(c.Value, 1) + " MiB"
	}
	return Times(c.Value)
}

// Field formats the value for the machine-readable line.
func (c Comparison) Field() string {
	if c.Count && !math.IsNaN(c.Value) {
		return Num(c.Value, 0)
	}
	return Fixed2(c.Value)
}

// Met tells whether the ratio meets its target, judged on the two decimals
// that the report prints, so that "1.00x" is never shown as missing "<= 1.00".
func (c Comparison) Met() bool {
	if math.IsNaN(c.Value) {
		return false
	}
	v := math.Round(c.Value*100) / 100
	if c.Strict {
		return v < c.Target
	}
	return v <= c.Target
}

func (c Comparison) targetText() string {
	if math.IsNaN(c.Target) {
		return "-"
	}
	op := "<="
	if c.Strict {
		op = "<"
	}
	return fmt.Sprintf("%s %.2f", op, c.Target)
}

func ComparisonTable(cs []Comparison) *Table {
	t := &Table{Header: []string{"ratio (medians)", "value", "target", "met"}}
	for _, c := range cs {
		met := "no"
		switch {
		case math.IsNaN(c.Target):
			met = "-"
		case c.Met():
			met = "yes"
		}
		t.Add(c.What, c.text(), c.targetText(), met)
	}
	return t
}

// MachineLine is the benchmark's last line: "bench:" and key=value for each
// of keys, in order, "nan" for a key none of cs has.
func MachineLine(cs []Comparison, keys []string) string {
	get := func(key string) string {
		for _, c := range cs {
			if c.Key == key {
				return c.Field()
			}
		}
		return "nan"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + get(k)
	}
	return "bench: " + strings.Join(parts, " ")
}
