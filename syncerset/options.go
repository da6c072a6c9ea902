package syncerset

import "github.com/syncer-gen/syncer-gen/runtime"

// Option configures a Set.
type Option func(*options)

type options struct {
	defaults []runtime.Option
	metrics  func(resource string) runtime.Metrics
}

// WithDefaults gives options that every syncer of the set gets before its
// own, e.g. runtime.WithLogger or runtime.WithStripManagedFields.
func WithDefaults(opts ...runtime.Option) Option {
	return func(o *options) { o.defaults = append(o.defaults, opts...) }
}

// WithMetrics gives each syncer of the set the metrics for its resource
// (runtime.Resource.String()), e.g. prometheusmetrics.Metrics.For.
func WithMetrics(forResource func(resource string) runtime.Metrics) Option {
	return func(o *options) { o.metrics = forResource }
}
