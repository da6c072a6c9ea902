package runtime

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
)

// Option configures a Syncer.
type Option func(*config)

type config struct {
	namespace       string
	namespaces      []string // WithNamespaces
	namespacesSet   bool     // WithNamespaces was given
	names           []Key    // WithNames
	namesSet        bool     // WithNames was given
	oneName         bool     // a lane of one name (WithNames): one object at most, never counted
	labelSelector   string
	fieldSelector   string
	pageSize        int64
	bookmarkTimeout time.Duration
	initialTimeout  time.Duration
	watchTimeout    time.Duration
	probeInterval   time.Duration
	minBackoff      time.Duration
	maxBackoff      time.Duration
	watchList       int8 // 0: chosen by the selection (firstWatchList); 1: WithWatchList; -1: WithoutWatchList
	compression     bool // accept gzip-compressed responses (WithCompression)
	transforms      []func(any) any
	indexes         map[string]func(any) []string
	indexTwice      []string // names WithIndex was given more than once
	logger          logr.Logger
	metrics         Metrics
	httpClient      *http.Client
	snapshotPath    string
	snapshotEvery   time.Duration
	shard           sharding.Selector // nil: not sharded
	shardErr        error             // a WithShard that cannot work
	shardName       string            // see ShardName
	resource        string            // the Resource's String(), for logs
	namespaced      bool              // the Resource's Namespaced

	resyncPeriod time.Duration // WithResyncPeriod; 0: none
	driftEvery   time.Duration // WithDriftCheck; 0: none
	lagProbe     time.Duration // WithLagProbe; 0: none
}

func defaultConfig() config {
	return config{
		pageSize:        500,
		bookmarkTimeout: 10 * time.Second,
		initialTimeout:  5 * time.Minute,
		watchTimeout:    5 * time.Minute,
		probeInterval:   10 * time.Minute,
		snapshotEvery:   5 * time.Minute,
		minBackoff:      200 * time.Millisecond,
		maxBackoff:      30 * time.Second,
		logger:          logr.Discard(),
		metrics:         NopMetrics{},
	}
}

// validate reports options that cannot work: zero or negative durations
// and sizes, a largest backoff below the first, missing hooks.
func (c *config) validate() error {
	var errs []error
	positive := func(name string, d time.Duration) {
		if d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %s", name, d))
		}
	}
	positive("WithBookmarkTimeout", c.bookmarkTimeout)
	positive("WithInitialEventsTimeout", c.initialTimeout)
	positive("WithWatchTimeout", c.watchTimeout)
	positive("WithProbeInterval", c.probeInterval)
	positive("WithSnapshotInterval", c.snapshotEvery)
	positive("WithBackoff's initial wait", c.minBackoff)
	if c.maxBackoff < c.minBackoff {
		errs = append(errs, fmt.Errorf("WithBackoff: the largest wait %s is below the first %s", c.maxBackoff, c.minBackoff))
	}
	if c.watchTimeout > 0 && c.watchTimeout < time.Second {
		errs = append(errs, fmt.Errorf("WithWatchTimeout must be at least 1s (the server counts in seconds), got %s", c.watchTimeout))
	}
	offOrPositive := func(name string, d time.Duration) {
		if d < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative (0 turns it off), got %s", name, d))
		}
	}
	offOrPositive("WithResyncPeriod", c.resyncPeriod)
	offOrPositive("WithDriftCheck", c.driftEvery)
	offOrPositive("WithLagProbe", c.lagProbe)
	if c.pageSize < 0 {
		errs = append(errs, fmt.Errorf("WithPageSize must not be negative, got %d", c.pageSize))
	}
	if c.snapshotPath != "" {
		if fi, err := os.Stat(filepath.Dir(c.snapshotPath)); err != nil || !fi.IsDir() {
			errs = append(errs, fmt.Errorf("WithSnapshot(%q): its folder must exist: %v", c.snapshotPath, err))
		}
	}
	errs = append(errs, c.validateNamespaces()...)
	errs = append(errs, c.validateNames()...)
	for _, name := range c.indexTwice {
		errs = append(errs, fmt.Errorf("WithIndex(%q) given twice: one index a name (a marker's index and a WithIndex may not share it)", name))
	}
	if c.metrics == nil {
		errs = append(errs, errors.New("WithMetrics(nil): use NopMetrics{}"))
	}
	switch {
	case c.shardErr != nil:
		errs = append(errs, c.shardErr)
	case c.shard != nil:
		if err := checkShard(c.shard); err != nil {
			errs = append(errs, fmt.Errorf("WithShardSelector(%q): %w", c.shard.String(), err))
		}
	}
	return errors.Join(errs...)
}

// WithNamespace limits the Syncer to one namespace. The default is all namespaces.
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithLabelSelector keeps only the objects whose labels match sel, e.g. "app=web".
func WithLabelSelector(sel string) Option { return func(c *config) { c.labelSelector = sel } }

// WithFieldSelector keeps only the objects whose fields match sel, e.g.
// "spec.nodeName=node-1". Such a Syncer syncs with paginated LIST + WATCH
// unless WithWatchList is given: see firstWatchList.
func WithFieldSelector(sel string) Option { return func(c *config) { c.fieldSelector = sel } }

// WithPageSize sets the limit of each LIST page in the fallback mode
// (default 500; 0 reads the LIST in one piece). A warm start's
// metadata-only LIST reads pages ten times as large, of at most 10,000
// items whatever the page size (0 included) and at most 32 MiB: a larger
// page is asked for again with an eighth of the limit.
func WithPageSize(n int64) Option { return func(c *config) { c.pageSize = n } }

// WithBookmarkTimeout bounds the wait for the initial-events-end bookmark of
// a WatchList stream once the stream has shown that its initial events are
// over (live events flow, or as many objects as the server counted arrived),
// and how long the stream may stay silent before it; past it the Syncer
// decides that the bookmark will not come and completes the sync with a
// LIST (default 10s). A server sends the bookmark about a second after the
// initial events.
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
func WithoutWatchList() Option { return func(c *config) { c.watchList = -1 } }

// WithWatchList makes the Syncer try WatchList first even with a field
// selector, where by default it lists (see firstWatchList).
func WithWatchList() Option { return func(c *config) { c.watchList = 1 } }

// firstWatchList tells whether a sync tries WatchList before paginated
// LIST + WATCH. It does unless told otherwise, or unless there is a field
// selector: a WatchList with one cost kube-apiserver several times a LIST
// of the same selection. Measured on v1.37.2 (bench, wave part): 100 node
// agents, each
// syncing its node's pods (spec.nodeName=) of 20,000, cost it 2.5 s of CPU
// and 568 MiB allocated with WatchList, 0.76 s and 49 MiB with LIST +
// WATCH, and synced sooner.
func (c *config) firstWatchList() bool {
	return c.watchList > 0 || c.watchList == 0 && c.fieldSelector == ""
}

// WithCompression lets the server gzip its responses. By default a Syncer
// asks for them uncompressed (Accept-Encoding: identity on every request):
// kube-apiserver gzips LIST responses over 128 KiB and, from 1.37, WatchList
// streams for any client that accepts gzip, as Go's transport does unless
// told otherwise, and compressing is most of what a cold sync costs it. On
// kube-apiserver v1.37.2, 8 syncers syncing 20,000 ConfigMaps at once cost
// it 0.55x the CPU uncompressed, and synced in 0.55x the time
// (docs/benchmarks.md, server cost), for the bytes gzip would have saved on
// the wire. Turn compression on where the wire is dear and the server's
// CPU is not: a client far from its cluster, on a metered or slow link.
func WithCompression() Option { return func(c *config) { c.compression = true } }

// WithLogger sets the logger (default: discard).
func WithLogger(l logr.Logger) Option { return func(c *config) { c.logger = l } }

// WithMetrics sets the metrics hooks (default: none).
func WithMetrics(m Metrics) Option { return func(c *config) { c.metrics = m } }

// WithHTTPClient makes the Syncer send its requests through client instead
// of one built from the rest.Config, so that syncers that share client
// share its transport: one HTTP/2 connection to the server, as client-go's
// informers of one factory do. client must be made for the same rest.Config
// (rest.HTTPClientFor), which still gives the server and the credentials'
// wrappers. A set of syncers (package syncerset) does this for its members.
func WithHTTPClient(client *http.Client) Option { return func(c *config) { c.httpClient = client } }

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
// A name is given once: New fails for one given twice, so that neither index
// silently replaces the other (a generated syncer gives its markers' indexes
// this way).
func WithIndex[T Object](name string, f func(T) []string) Option {
	return func(c *config) {
		if c.indexes == nil {
			c.indexes = map[string]func(any) []string{}
		}
		if _, ok := c.indexes[name]; ok {
			c.indexTwice = append(c.indexTwice, name)
		}
		c.indexes[name] = func(o any) []string { return f(o.(T)) }
	}
}

// WithSnapshot makes restarts warm: the Syncer saves its store to the file
// at path (written whole and renamed into place, mode 0600) when Run returns
// and every WithSnapshotInterval while synced, and at its first sync loads
// it and reads only what changed since: a metadata-only LIST tells which
// objects are new, changed or gone, and a watch from the snapshot's
// resourceVersion brings their changes (or, where the server no longer has
// it, GETs do). A snapshot that cannot be read, or that
// was saved for another server, resource, namespace, selector or type, is
// logged and ignored: the sync is cold. An object that cannot be written
// (a transform put a cycle in it, or in an interface what JSON does not
// decode into) is left out, logged and counted (SnapshotMetrics), and the
// rest saved: the next start fetches it. Each object comes back as it was
// stored, its apiVersion and kind included. Each Syncer needs a path of its own.
func WithSnapshot(path string) Option { return func(c *config) { c.snapshotPath = path } }

// WithSnapshotInterval sets how often a synced Syncer saves its snapshot
// (default 5m; see WithSnapshot).
func WithSnapshotInterval(d time.Duration) Option { return func(c *config) { c.snapshotEvery = d } }
