package driver

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// AllocatedMetric is the Go runtime's count of the bytes a process has
// Allocated since it started, as kube-apiserver's /metrics exposes it.
const AllocatedMetric = "go_memstats_alloc_bytes_total"

// ParseMetric returns the value of the sample of Prometheus's text format
// named name, without labels.
func ParseMetric(text []byte, name string) (float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no sample %s", name)
}
