package ctrlsyncer

import (
	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/syncer-gen/syncer-gen/runtime"
)

// ClientOption configures a Client.
type ClientOption func(*clientOptions)

type clientOptions struct {
	logger     logr.Logger
	syncerOpts []runtime.Option
	readerOpts []ReaderOption
	cacheOpts  *cache.Options // WithCacheOptions
}

// WithLogger makes the Client's syncers log to l rather than to the
// Manager's logger.
func WithLogger(l logr.Logger) ClientOption { return func(o *clientOptions) { o.logger = l } }

// WithSyncerOptions gives options every syncer of the Client gets before
// its own, e.g. runtime.WithNamespace for a Manager whose cache watches
// one namespace (WithCacheOptions gives the cache's namespaces, type by
// type).
func WithSyncerOptions(opts ...runtime.Option) ClientOption {
	return func(o *clientOptions) { o.syncerOpts = append(o.syncerOpts, opts...) }
}

// WithReaderOptions configures how the Client reads the syncers, e.g.
// WithoutDeepCopy.
func WithReaderOptions(opts ...ReaderOption) ClientOption {
	return func(o *clientOptions) { o.readerOpts = append(o.readerOpts, opts...) }
}
