package ctrlsyncer

import (
	"time"

	"github.com/go-logr/logr"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// ClientOption configures a Client.
type ClientOption func(*clientOptions)

type clientOptions struct {
	logger     logr.Logger
	syncerOpts []runtime.Option
	readerOpts []ReaderOption
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
// keeps its period with
// NewClient(mgr, WithSyncerOptions(runtime.WithResyncPeriod(p))): a
// Manager does not tell its cache's options.
const SyncPeriod = 10 * time.Hour

// WithSyncerOptions gives options every syncer of the Client gets before
// its own, e.g. runtime.WithNamespace for a Manager whose cache watches
// one namespace, or runtime.WithResyncPeriod for a Manager whose cache has
// another SyncPeriod than the default.
func WithSyncerOptions(opts ...runtime.Option) ClientOption {
	return func(o *clientOptions) { o.syncerOpts = append(o.syncerOpts, opts...) }
}

// WithReaderOptions configures how the Client reads the syncers, e.g.
// WithoutDeepCopy.
func WithReaderOptions(opts ...ReaderOption) ClientOption {
	return func(o *clientOptions) { o.readerOpts = append(o.readerOpts, opts...) }
}
