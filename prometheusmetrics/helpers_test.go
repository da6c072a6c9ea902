package prometheusmetrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// histogram returns the one histogram of name whose resource label is resource.
func histogram(t *testing.T, g prometheus.Gatherer, name, resource string) *dto.Histogram {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "resource" && l.GetValue() == resource {
					return m.GetHistogram()
				}
			}
		}
	}
	t.Fatalf("no %s{resource=%q}", name, resource)
	return nil
}

func histogramSum(t *testing.T, g prometheus.Gatherer, name, resource string) float64 {
	t.Helper()
	return histogram(t, g, name, resource).GetSampleSum()
}

func histogramCount(t *testing.T, g prometheus.Gatherer, name, resource string) uint64 {
	t.Helper()
	return histogram(t, g, name, resource).GetSampleCount()
}
