package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// allocatedMetric is the Go runtime's count of the bytes a process has
// allocated since it started, as kube-apiserver's /metrics exposes it.
const allocatedMetric = "go_memstats_alloc_bytes_total"

// apiserverAllocated returns kube-apiserver's allocatedMetric. Unlike its
// peak RSS, which depends on when its garbage collector last ran, it
// counts the work a row gave the server; each scrape adds the same small
// amount (the rendering of /metrics) to every row.
func (b *bench) apiserverAllocated(ctx context.Context) (float64, error) {
	body, err := b.cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	return parseMetric(body, allocatedMetric)
}

// parseMetric returns the value of the sample of Prometheus's text format
// named name, without labels.
func parseMetric(text []byte, name string) (float64, error) {
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
