package runtime

import (
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Option configures a Syncer.
type Option func(*config)

type config struct {
	namespace       string
	labelSelector   string
	fieldSelector   string
	pageSize        int64
	bookmarkTimeout time.Duration
	initialTimeout  time.Duration
	watchTimeout    time.Duration
	probeInterval   time.Duration
	minBackoff      time.Duration
	maxBackoff      time.Duration
	watchList       bool
	transforms      []func(any) any
	indexes         map[string]func(any) []string
	logger          logr.Logger
	metrics         Metrics
}

func defaultConfig() config {
	return config{
		pageSize:        500,
		bookmarkTimeout: 10 * time.Second,
		initialTimeout:  5 * time.Minute,
		watchTimeout:    5 * time.Minute,
		probeInterval:   10 * time.Minute,
		minBackoff:      200 * time.Millisecond,
		maxBackoff:      30 * time.Second,
		watchList:       true,
		logger:          logr.Discard(),
		metrics:         NopMetrics{},
	}
}

// WithNamespace limits the Syncer to one namespace. The default is all namespaces.
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithLabelSelector keeps only the objects whose labels match sel, e.g. "app=web".
func WithLabelSelector(sel string) Option { return func(c *config) { c.labelSelector = sel } }

// WithFieldSelector keeps only the objects whose fields match sel, e.g.
// "spec.nodeName=node-1".
func WithFieldSelector(sel string) Option { return func(c *config) { c.fieldSelector = sel } }

// WithPageSize sets the limit of each LIST page in the fallback mode (default 500).
func WithPageSize(n int64) Option { return func(c *config) { c.pageSize = n } }

// WithBookmarkTimeout bounds how long a WatchList stream may stay silent
// without having sent its initial-events-end bookmark before the Syncer
// decides the server does not support WatchList and falls back (default 10s).
func WithBookmarkTimeout(d time.Duration) Option { return func(c *config) { c.bookmarkTimeout = d } }

// WithInitialEventsTimeout bounds the whole initial WatchList stream, even
// when it never falls silent (default 5m).
func WithInitialEventsTimeout(d time.Duration) Option {
	return func(c *config) { c.initialTimeout = d }
}

// WithWatchTimeout sets the server-side timeout of each watch request; the
// Syncer reconnects from the last resourceVersion when it ends (default 5m,
// jittered up to twice that).
func WithWatchTimeout(d time.Duration) Option { return func(c *config) { c.watchTimeout = d } }

// WithProbeInterval sets how long the decision to use the fallback mode
// stands before WatchList is tried again (default 10m).
func WithProbeInterval(d time.Duration) Option { return func(c *config) { c.probeInterval = d } }

// WithBackoff sets the first and the largest wait between retries (default
// 200ms and 30s). Waits double on each failure, with jitter.
func WithBackoff(initial, max time.Duration) Option {
	return func(c *config) { c.minBackoff, c.maxBackoff = initial, max }
}

// WithoutWatchList makes the Syncer use paginated LIST + WATCH only.
func WithoutWatchList() Option { return func(c *config) { c.watchList = false } }

// WithLogger sets the logger (default: discard).
func WithLogger(l logr.Logger) Option { return func(c *config) { c.logger = l } }

// WithMetrics sets the metrics hooks (default: none).
func WithMetrics(m Metrics) Option { return func(c *config) { c.metrics = m } }

// WithTransform changes each object as it arrives, before it is stored or
// handed to handlers. Transforms run in the order given.
func WithTransform[T Object](f func(T) T) Option {
	return func(c *config) {
		c.transforms = append(c.transforms, func(o any) any { return f(o.(T)) })
	}
}

// WithStripManagedFields drops metadata.managedFields from each object as it
// arrives; for most resources that is a large share of their memory.
func WithStripManagedFields() Option {
	return func(c *config) {
		c.transforms = append(c.transforms, func(o any) any {
			o.(metav1.Object).SetManagedFields(nil)
			return o
		})
	}
}

// WithIndex adds a named index to the store: f returns the index values of
// an object, and Store.ByIndex(name, value) returns the objects that have it.
func WithIndex[T Object](name string, f func(T) []string) Option {
	return func(c *config) {
		if c.indexes == nil {
			c.indexes = map[string]func(any) []string{}
		}
		c.indexes[name] = func(o any) []string { return f(o.(T)) }
	}
}
