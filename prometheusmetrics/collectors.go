package prometheusmetrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics holds the collectors shared by every syncer of a program. Bind it
// to a syncer with For.
type Metrics struct {
	events         *prometheus.CounterVec
	syncs          *prometheus.CounterVec
	syncDuration   *prometheus.HistogramVec
	syncObjects    *prometheus.GaugeVec
	errors         *prometheus.CounterVec
	mode           *prometheus.GaugeVec
	relists        *prometheus.CounterVec
	reconnects     *prometheus.CounterVec
	objects        *prometheus.GaugeVec
	storeBytes     *prometheus.GaugeVec
	queueDepth     *prometheus.GaugeVec
	handlerWait    *prometheus.HistogramVec
	handlerLatency *prometheus.HistogramVec
	handlerPanics  *prometheus.CounterVec
	shardMode      *prometheus.GaugeVec
	readWaits      *prometheus.HistogramVec
	readFailOpen   *prometheus.CounterVec
	driftRepairs   *prometheus.CounterVec
	notSaved       *prometheus.CounterVec
	names          *prometheus.GaugeVec
	namesRefused   *prometheus.GaugeVec
	lag            *prometheus.GaugeVec
	lagSamples     *prometheus.HistogramVec
	storeRV        *prometheus.GaugeVec
	stalls         *prometheus.CounterVec
}

// Option configures New.
type Option func(*options)

type options struct {
	namespace string
}

// WithNamespace prefixes every metric name, e.g. "shop" makes
// shop_syncer_events_total (default: no prefix).
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// New makes the collectors and registers them on reg. It fails when one of
// them is already registered there (New called twice on one Registerer).
func New(reg prometheus.Registerer, opts ...Option) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("prometheusmetrics.New: nil Registerer (use prometheus.DefaultRegisterer or a prometheus.NewRegistry())")
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	ns := o.namespace
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "syncer", Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "syncer", Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "syncer", Name: name, Help: help, Buckets: buckets}, labels)
	}
	// Syncs take from milliseconds (a few objects) to minutes (a large
	// cluster over LIST); handler calls from microseconds up.
	syncBuckets := prometheus.ExponentialBuckets(0.005, 2, 17)   // 5ms .. ~5.5m
	handlerBuckets := prometheus.ExponentialBuckets(1e-6, 4, 14) // 1µs .. ~67s
	// A read waits for nothing (most), a watch's lag (milliseconds to a
	// second), or up to its limit (10s by default).
	waitBuckets := prometheus.ExponentialBuckets(1e-4, 2.5, 13) // 100µs .. ~6m
	m := &Metrics{
		events:         counter("events_total", "Events read from watch streams and LIST pages, by type.", "resource", "type"),
		syncs:          counter("syncs_total", "Full (re)syncs completed, by how the initial state was read.", "resource", "mode"),
		syncDuration:   histogram("sync_duration_seconds", "How long each full (re)sync took, in seconds.", syncBuckets, "resource", "mode"),
		syncObjects:    gauge("sync_objects", "Objects in the last completed full (re)sync.", "resource"),
		errors:         counter("errors_total", "Failures of list and watch requests and streams, by kind.", "resource", "kind"),
		mode:           gauge("mode", "1 for the mode the syncer reads the initial state with, 0 for the other.", "resource", "mode"),
		relists:        counter("relists_total", "Full resyncs started, by reason.", "resource", "reason"),
		reconnects:     counter("reconnects_total", "Watches that ended and were opened again, by reason.", "resource", "reason"),
		objects:        gauge("objects", "Objects in the syncer's store.", "resource"),
		storeBytes:     gauge("store_bytes", "Bytes the syncer's store holds: an estimate kept as objects come and go (runtime.Store.Bytes).", "resource"),
		queueDepth:     gauge("handler_queue_depth", "Calls waiting for a handler.", "resource", "handler"),
		handlerWait:    histogram("handler_wait_seconds", "Time from an event's arrival to the handler call that delivers it, in seconds.", handlerBuckets, "resource", "handler"),
		handlerLatency: histogram("handler_latency_seconds", "How long each handler call took, in seconds.", handlerBuckets, "resource", "handler"),
		handlerPanics:  counter("handler_panics_total", "Handler calls that panicked.", "resource", "handler"),
		shardMode:      gauge("shard_mode", "For a sharded syncer, 1 for who keeps it to its shard (served: the server, filtered: the syncer), 0 for the other.", "resource", "mode"),
		readWaits: histogram("read_wait_seconds", "How long reads waited for the store to see the program's own writes (read-your-own-writes), by operation and result (observed, timeout, cancelled, fail-open).",
			waitBuckets, "resource", "operation", "result"),
		readFailOpen: counter("read_wait_fail_open_total", "Waits for the store that returned at once because resourceVersions do not compare (the read may miss the program's own writes).", "resource", "operation"),
		driftRepairs: counter("drift_repairs_total", "Objects a drift check found the store wrong about and repaired, by what was wrong (missing, stale, gone).", "resource", "reason"),
		notSaved:     counter("snapshot_objects_not_saved_total", "Objects left out of a snapshot written, each time, because they could not be encoded (runtime.SnapshotMetrics).", "resource"),
		names:        gauge("names", "Names a syncer over names (runtime.WithNames) keeps.", "resource"),
		namesRefused: gauge("names_refused", "Names of a syncer over names that the server refuses to list or watch (runtime.NameError).", "resource"),
		lag:          gauge("lag_seconds", "How far behind the server the store was at the last lag probe, in seconds (runtime.WithLagProbe; 0: it held the server's state).", "resource"),
		lagSamples:   histogram("lag_probe_seconds", "The lag each probe measured, in seconds (runtime.WithLagProbe).", waitBuckets, "resource"),
		storeRV:      gauge("store_resource_version", "The resourceVersion the store is at, at the last lag probe (runtime.WithLagProbe).", "resource"),
		stalls:       counter("watch_stalls_total", "Watches restarted because they delivered nothing while a lag probe showed the store behind (runtime.WithLagProbe).", "resource"),
	}
	for _, c := range m.collectors() {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MustNew is New that panics on an error, for package-level variables.
func MustNew(reg prometheus.Registerer, opts ...Option) *Metrics {
	m, err := New(reg, opts...)
	if err != nil {
		panic(err)
	}
	return m
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		m.events, m.syncs, m.syncDuration, m.syncObjects, m.errors, m.mode, m.relists,
		m.reconnects, m.objects, m.storeBytes, m.queueDepth, m.handlerWait, m.handlerLatency, m.handlerPanics, m.shardMode,
		m.readWaits, m.readFailOpen,
		m.driftRepairs, m.notSaved, m.names, m.namesRefused, m.lag, m.lagSamples, m.storeRV, m.stalls,
	}
}

// Forget deletes every series of resource, for a syncer that is gone for
// good (a program that syncs resources it discovers, say).
func (m *Metrics) Forget(resource string) {
	l := prometheus.Labels{"resource": resource}
	for _, c := range m.collectors() {
		if v, ok := c.(interface {
			DeletePartialMatch(prometheus.Labels) int
		}); ok {
			v.DeletePartialMatch(l)
		}
	}
}
