package driver

import (
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
