package prometheusmetrics

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/syncer-gen/syncer-gen/fleet"
)

// FleetMetrics holds the collectors shared by the fleets of a program
// (package fleet), apart from the syncers' Metrics. Bind it to one fleet
// with For:
//
//	fm, err := prometheusmetrics.NewFleet(prometheus.DefaultRegisterer)
//	...
//	f, err := fleet.New(cfg, fleet.Options{Name: "widget-controller", Metrics: fm.For("widget-controller"), ...})
//
// The series, each with the label fleet=<fleet's Name>:
//
//	fleet_shards_held{fleet}              shards this replica works on now
//	fleet_members{fleet}                  live replicas this replica sees, itself included
//	fleet_handovers_total{fleet,kind}     shards acquired, released or lost by this replica
//	fleet_takeover_seconds{fleet,from}    from the previous holder's last renewal (from="expired")
//	                                      or release (from="released"), as observed, to this
//	                                      replica's acquisition
type FleetMetrics struct {
	held      *prometheus.GaugeVec
	members   *prometheus.GaugeVec
	handovers *prometheus.CounterVec
	takeover  *prometheus.HistogramVec
}

// NewFleet makes the fleet collectors and registers them on reg. It fails
// when one of them is already registered there. WithNamespace prefixes
// their names as it does New's.
func NewFleet(reg prometheus.Registerer, opts ...Option) (*FleetMetrics, error) {
	if reg == nil {
		return nil, errors.New("prometheusmetrics.NewFleet: nil Registerer (use prometheus.DefaultRegisterer or a prometheus.NewRegistry())")
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	ns := o.namespace
	// A takeover takes about a RetryPeriod after a release (a second or
	// two) and about a LeaseDuration after an expiry (15s by default).
	buckets := prometheus.ExponentialBuckets(0.01, 2, 16) // 10ms .. ~5.5m
	m := &FleetMetrics{
		held: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "fleet", Name: "shards_held",
			Help: "Shards this replica works on now."}, []string{"fleet"}),
		members: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "fleet", Name: "members",
			Help: "Live replicas this replica sees, itself included."}, []string{"fleet"}),
		handovers: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "fleet", Name: "handovers_total",
			Help: "Shards acquired, released or lost by this replica."}, []string{"fleet", "kind"}),
		takeover: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "fleet", Name: "takeover_seconds",
			Help:    "Time from the previous holder's last renewal or release, as this replica observed it, to this replica's acquisition of the shard, in seconds.",
			Buckets: buckets}, []string{"fleet", "from"}),
	}
	for _, c := range []prometheus.Collector{m.held, m.members, m.handovers, m.takeover} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// MustNewFleet is NewFleet that panics on an error, for package-level
// variables.
func MustNewFleet(reg prometheus.Registerer, opts ...Option) *FleetMetrics {
	m, err := NewFleet(reg, opts...)
	if err != nil {
		panic(err)
	}
	return m
}

// For returns the fleet.Metrics of the fleet named name (its
// Options.Name).
func (m *FleetMetrics) For(name string) fleet.Metrics {
	b := &fleetBound{
		held:      m.held.WithLabelValues(name),
		members:   m.members.WithLabelValues(name),
		handovers: map[fleet.Handover]prometheus.Counter{},
		takeover:  m.takeover.MustCurryWith(prometheus.Labels{"fleet": name}),
		vec:       m.handovers,
		name:      name,
	}
	// Every kind shows, at 0 until it happens.
	for _, k := range []fleet.Handover{fleet.Acquired, fleet.Released, fleet.Lost} {
		b.handovers[k] = m.handovers.WithLabelValues(name, string(k))
	}
	return b
}

// fleetBound is FleetMetrics bound to one fleet. Its map is filled before
// use and only read after, so it is safe for concurrent use.
type fleetBound struct {
	held, members prometheus.Gauge
	handovers     map[fleet.Handover]prometheus.Counter
	takeover      prometheus.ObserverVec
	vec           *prometheus.CounterVec
	name          string
}

var _ fleet.Metrics = (*fleetBound)(nil)

// ShardsHeld implements fleet.Metrics.
func (b *fleetBound) ShardsHeld(n int) { b.held.Set(float64(n)) }

// Members implements fleet.Metrics.
func (b *fleetBound) Members(n int) { b.members.Set(float64(n)) }

// Handover implements fleet.Metrics.
func (b *fleetBound) Handover(kind fleet.Handover) {
	if c, ok := b.handovers[kind]; ok {
		c.Inc()
		return
	}
	b.vec.WithLabelValues(b.name, string(kind)).Inc()
}

// TookOver implements fleet.Metrics.
func (b *fleetBound) TookOver(from fleet.Takeover, after time.Duration) {
	b.takeover.WithLabelValues(string(from)).Observe(after.Seconds())
}
