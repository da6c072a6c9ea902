package driver

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Median returns the median of xs (the mean of the middle two for an even
// Count), or NaN for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Percentile returns the p-th percentile (0 < p <= 100) of ds by the
// nearest-rank method, or 0 for none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}

func LagPercentiles(ds []time.Duration) (p50, p99 time.Duration) {
	return Percentile(ds, 50), Percentile(ds, 99)
}

// Ratio returns a/b, or NaN when either is missing or b is zero.
func Ratio(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return a / b
}

// CPUSlope returns the CPU seconds per event that r's steady states add:
// the slope of a least-squares line through their points (events per
// second, CPU seconds per second), the steady state's and each slope
// phase's. ok is false with fewer than two points at different rates.
func CPUSlope(r Result) (slope float64, ok bool) {
	var xs, ys []float64
	for _, s := range append([]SteadyReport{*cmp.Or(r.Steady, &SteadyReport{})}, r.Slope...) {
		if s.Events > 0 && s.Seconds > 0 {
			xs, ys = append(xs, float64(s.Events)/s.Seconds), append(ys, s.CPUSeconds/s.Seconds)
		}
	}
	return LineSlope(xs, ys)
}

// LineSlope returns the slope of the least-squares line through the
// points (xs[i], ys[i]); ok is false with fewer than two distinct xs.
func LineSlope(xs, ys []float64) (slope float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return math.NaN(), false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i] / n
		my += ys[i] / n
	}
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if sxx == 0 {
		return math.NaN(), false
	}
	return sxy / sxx, true
}
