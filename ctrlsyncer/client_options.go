package ctrlsyncer

import (
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// ClientOption configures a Client.
type ClientOption func(*clientOptions)

type clientOptions struct {
	logger         logr.Logger
	syncerOpts     []runtime.Option
	readerOpts     []ReaderOption
	readYourWrites *bool // nil: as the Manager's client
	waitLimit      time.Duration
	metrics        func(resource string) runtime.Metrics
	cacheOpts      *cache.Options // WithCacheOptions
	shadow         *shadow        // WithShadowReads
	noOlderThan    *time.Duration // WithReadsNoOlderThan
}

// WithLogger makes the Client's syncers log to l rather than to the
// Manager's logger.
func WithLogger(l logr.Logger) ClientOption { return func(o *clientOptions) { o.logger = l } }

// SyncPeriod is the resync period of a Client's syncers unless told
// otherwise: controller-runtime's cache's default SyncPeriod, jittered by
// ±10% as there. Each syncer re-delivers every object it holds to its
// handlers every SyncPeriod as an update whose old and new objects are the
// same (runtime.WithResyncPeriod), which controller-runtime's handlers
// enqueue at low priority. A Manager made with cache.Options{SyncPeriod: &p}
// keeps its period with NewClient(mgr, WithCacheOptions(opts)) or
// NewClient(mgr, WithSyncerOptions(runtime.WithResyncPeriod(p))): a
// Manager does not tell its cache's options.
const SyncPeriod = 10 * time.Hour

// WithSyncerOptions gives options every syncer of the Client gets before
// its own, e.g. runtime.WithNamespace for a Manager whose cache watches
// one namespace (WithCacheOptions gives the cache's namespaces,
// selectors, transforms and resync periods, type by type).
func WithSyncerOptions(opts ...runtime.Option) ClientOption {
	return func(o *clientOptions) { o.syncerOpts = append(o.syncerOpts, opts...) }
}

// WithReaderOptions configures how the Client reads the syncers, e.g.
// WithoutDeepCopy.
func WithReaderOptions(opts ...ReaderOption) ClientOption {
	return func(o *clientOptions) { o.readerOpts = append(o.readerOpts, opts...) }
}

// WithReadYourWrites makes the Client's reads of a resource with a syncer
// wait until the syncer's store has seen the Client's own writes that can
// change their answer (see Client), each wait for at most limit (0: 10s),
// whatever the Manager's client does. Without it the Client does as the
// Manager's client: it waits when the Manager was made with
// client.CacheOptions{EnableReadYourWritesConsistency: ptr.To(true)}.
func WithReadYourWrites(limit time.Duration) ClientOption {
	return func(o *clientOptions) { on := true; o.readYourWrites, o.waitLimit = &on, limit }
}

// WithoutReadYourWrites makes the Client's reads never wait for its own
// writes, whatever the Manager's client does.
func WithoutReadYourWrites() ClientOption {
	return func(o *clientOptions) { off := false; o.readYourWrites = &off }
}

// WithMetrics gives each syncer of the Client the metrics for its
// resource, e.g. prometheusmetrics.MustNew(metrics.Registry).For, which
// serves them on the Manager's metrics endpoint.
func WithMetrics(forResource func(resource string) runtime.Metrics) ClientOption {
	return func(o *clientOptions) { o.metrics = forResource }
}
