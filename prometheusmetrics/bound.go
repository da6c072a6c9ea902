package prometheusmetrics

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/syncer-gen/syncer-gen/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// For returns the runtime.Metrics of one syncer: every series it feeds has
// the label resource=resource (runtime.Resource.String() reads well, e.g.
// "widgets.shop.example.com/v1alpha1"). Two syncers may share a resource
// name; their counts add up.
func (m *Metrics) For(resource string) runtime.Metrics {
	l := prometheus.Labels{"resource": resource}
	b := &bound{
		m:              m,
		resource:       resource,
		events:         map[watch.EventType]prometheus.Counter{},
		syncs:          m.syncs.MustCurryWith(l),
		syncDuration:   m.syncDuration.MustCurryWith(l),
		syncObjects:    m.syncObjects.With(l),
		errors:         m.errors.MustCurryWith(l),
		mode:           m.mode.MustCurryWith(l),
		shardMode:      m.shardMode.MustCurryWith(l),
		relists:        m.relists.MustCurryWith(l),
		reconnects:     m.reconnects.MustCurryWith(l),
		objects:        m.objects.With(l),
		storeBytes:     m.storeBytes.With(l),
		queueDepth:     m.queueDepth.MustCurryWith(l),
		handlerWait:    m.handlerWait.MustCurryWith(l),
		handlerLatency: m.handlerLatency.MustCurryWith(l),
		handlerPanics:  m.handlerPanics.MustCurryWith(l),
		readWaits:      m.readWaits.MustCurryWith(l),
		readFailOpen:   m.readFailOpen.MustCurryWith(l),
		driftRepairs:   m.driftRepairs.MustCurryWith(l),
		notSaved:       m.notSaved.With(l),
		names:          m.names.With(l),
		namesRefused:   m.namesRefused.With(l),
		lag:            m.lag.With(l),
		lagSamples:     m.lagSamples.With(l),
		storeRV:        m.storeRV.With(l),
		stalls:         m.stalls.With(l),
	}
	// EventReceived is called for every object: look its counters up once.
	for _, t := range []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error} {
		b.events[t] = m.events.WithLabelValues(resource, lower(string(t)))
	}
	return b
}

// bound is Metrics bound to one resource. Its maps are filled before use
// and only read after, so it is safe for concurrent use.
type bound struct {
	m              *Metrics
	resource       string
	events         map[watch.EventType]prometheus.Counter
	syncs          *prometheus.CounterVec
	syncDuration   prometheus.ObserverVec
	syncObjects    prometheus.Gauge
	errors         *prometheus.CounterVec
	mode           *prometheus.GaugeVec
	relists        *prometheus.CounterVec
	reconnects     *prometheus.CounterVec
	objects        prometheus.Gauge
	storeBytes     prometheus.Gauge
	queueDepth     *prometheus.GaugeVec
	handlerWait    prometheus.ObserverVec
	handlerLatency prometheus.ObserverVec
	handlerPanics  *prometheus.CounterVec
	shardMode      *prometheus.GaugeVec
	readWaits      prometheus.ObserverVec
	readFailOpen   *prometheus.CounterVec
	driftRepairs   *prometheus.CounterVec
	notSaved       prometheus.Counter
	names          prometheus.Gauge
	namesRefused   prometheus.Gauge
	lag            prometheus.Gauge
	lagSamples     prometheus.Observer
	storeRV        prometheus.Gauge
	stalls         prometheus.Counter
}

var (
	_ runtime.Metrics         = (*bound)(nil)
	_ runtime.SnapshotMetrics = (*bound)(nil)
	_ runtime.NamesMetrics    = (*bound)(nil)
	_ runtime.LagMetrics      = (*bound)(nil)
)

func lower(s string) string { return strings.ToLower(s) }

// EventReceived implements runtime.Metrics.
func (b *bound) EventReceived(t watch.EventType) {
	if c, ok := b.events[t]; ok {
		c.Inc()
		return
	}
	b.m.events.WithLabelValues(b.resource, lower(string(t))).Inc()
}

// Synced implements runtime.Metrics.
func (b *bound) Synced(mode runtime.Mode, objects int, took time.Duration) {
	b.syncs.WithLabelValues(mode.String()).Inc()
	b.syncDuration.WithLabelValues(mode.String()).Observe(took.Seconds())
	b.syncObjects.Set(float64(objects))
}

// Error implements runtime.Metrics.
func (b *bound) Error(kind runtime.ErrorKind) { b.errors.WithLabelValues(kind.String()).Inc() }

// ModeChanged implements runtime.Metrics.
func (b *bound) ModeChanged(mode runtime.Mode) {
	for _, m := range []runtime.Mode{runtime.ModeWatchList, runtime.ModeList} {
		v := 0.0
		if m == mode {
			v = 1
		}
		b.mode.WithLabelValues(m.String()).Set(v)
	}
}

// ShardModeChanged implements runtime.Metrics.
func (b *bound) ShardModeChanged(mode runtime.ShardMode) {
	for _, m := range []runtime.ShardMode{runtime.ShardServed, runtime.ShardFiltered} {
		v := 0.0
		if m == mode {
			v = 1
		}
		b.shardMode.WithLabelValues(m.String()).Set(v)
	}
}

// Relisted implements runtime.Metrics.
func (b *bound) Relisted(reason runtime.Reason) { b.relists.WithLabelValues(string(reason)).Inc() }

// Reconnected implements runtime.Metrics.
func (b *bound) Reconnected(reason runtime.Reason) {
	b.reconnects.WithLabelValues(string(reason)).Inc()
}

// ObjectsStored implements runtime.Metrics.
func (b *bound) ObjectsStored(n int) { b.objects.Set(float64(n)) }

// StoreBytes implements runtime.Metrics.
func (b *bound) StoreBytes(n int64) { b.storeBytes.Set(float64(n)) }

// HandlerQueueDepth implements runtime.Metrics.
func (b *bound) HandlerQueueDepth(handler string, depth int) {
	b.queueDepth.WithLabelValues(handler).Set(float64(depth))
}

// HandlerCalled implements runtime.Metrics.
func (b *bound) HandlerCalled(handler string, waited, took time.Duration) {
	b.handlerWait.WithLabelValues(handler).Observe(waited.Seconds())
	b.handlerLatency.WithLabelValues(handler).Observe(took.Seconds())
}

// HandlerPanicked implements runtime.Metrics.
func (b *bound) HandlerPanicked(handler string) { b.handlerPanics.WithLabelValues(handler).Inc() }

// ReadWaited implements runtime.Metrics.
func (b *bound) ReadWaited(op runtime.WaitOp, result runtime.WaitResult, waited time.Duration) {
	b.readWaits.WithLabelValues(string(op), string(result)).Observe(waited.Seconds())
	if result == runtime.WaitFailedOpen {
		b.readFailOpen.WithLabelValues(string(op)).Inc()
	}
}

// DriftRepaired implements runtime.Metrics.
func (b *bound) DriftRepaired(reason runtime.Reason) {
	b.driftRepairs.WithLabelValues(string(reason)).Inc()
}

// ObjectsNotSaved implements runtime.SnapshotMetrics.
func (b *bound) ObjectsNotSaved(n int) { b.notSaved.Add(float64(n)) }

// Names implements runtime.NamesMetrics.
func (b *bound) Names(n, refused int) {
	b.names.Set(float64(n))
	b.namesRefused.Set(float64(refused))
}

// Lagged implements runtime.LagMetrics. A resourceVersion that is not an
// integer leaves the gauge as it was.
func (b *bound) Lagged(behind time.Duration, storeRV string) {
	b.lag.Set(behind.Seconds())
	b.lagSamples.Observe(behind.Seconds())
	if rv, err := strconv.ParseUint(storeRV, 10, 64); err == nil {
		b.storeRV.Set(float64(rv))
	}
}

// WatchStalled implements runtime.LagMetrics.
func (b *bound) WatchStalled() { b.stalls.Inc() }
