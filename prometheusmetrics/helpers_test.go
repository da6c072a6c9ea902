package prometheusmetrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// histogram returns the one histogram of name whose resource label is resource.
func histogram(t *testing.T, g prometheus.Gatherer, name, resource string) *dto.Histogram {
	t.Helper()
	return series(t, g, name, resource).GetHistogram()
}

// gaugeValue returns the value of the one gauge of name whose resource label is resource.
func gaugeValue(t *testing.T, g prometheus.Gatherer, name, resource string) float64 {
	t.Helper()
	return series(t, g, name, resource).GetGauge().GetValue()
}

// series returns the one series of name whose resource label is resource.
func series(t *testing.T, g prometheus.Gatherer, name, resource string) *dto.Metric {
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
					return m
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
