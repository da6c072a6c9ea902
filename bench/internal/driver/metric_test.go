package driver

import "testing"

func TestParseMetric(t *testing.T) {
	text := []byte("# HELP go_memstats_alloc_bytes_total Total bytes.\n# TYPE go_memstats_alloc_bytes_total counter\n" +
		"go_memstats_alloc_bytes_total_other 5\ngo_memstats_alloc_bytes_total 1.2345e+09\nother{a=\"b\"} 3\n")
	if v, err := ParseMetric(text, AllocatedMetric); err != nil || v != 1.2345e9 {
		t.Errorf("parseMetric = %v, %v; want 1.2345e9", v, err)
	}
	if _, err := ParseMetric(text, "missing"); err == nil {
		t.Error("no error for a missing sample")
	}
}
