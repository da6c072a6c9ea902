// Package prometheusmetrics implements runtime.Metrics with Prometheus
// collectors, so that the runtime itself does not import Prometheus.
//
// One Metrics value holds the collectors and is registered once on the
// Registerer the program gives; For binds it to one syncer's resource, and
// every syncer of the program shares the same series under its own
// resource label:
//
//	m, err := prometheusmetrics.New(prometheus.DefaultRegisterer)
//	...
//	widgets, err := shopsyncers.NewWidgetSyncer(cfg, runtime.WithMetrics(m.For("widgets.shop.example.com/v1alpha1")))
//
// The names follow client-go's workqueue and controller-runtime's metrics:
// counters end in _total, durations are histograms in seconds.
//
//	syncer_events_total{resource,type}                 events read from streams and LIST pages
//	syncer_syncs_total{resource,mode}                  (re)syncs completed, by mode
//	syncer_sync_duration_seconds{resource,mode}        how long each took
//	syncer_sync_objects{resource}                      objects in the last completed sync
//	syncer_errors_total{resource,kind}                 failures, by runtime.ErrorKind
//	syncer_mode{resource,mode}                         1 for the mode in use, 0 for the other
//	syncer_relists_total{resource,reason}              full resyncs started, by reason
//	syncer_reconnects_total{resource,reason}           watches ended and reopened, by reason
//	syncer_objects{resource}                           objects in the store
//	syncer_store_bytes{resource}                       bytes the store holds (an estimate: runtime.Store.Bytes)
//	syncer_handler_queue_depth{resource,handler}       calls waiting for a handler
//	syncer_handler_wait_seconds{resource,handler}      from an event's arrival to its call
//	syncer_handler_latency_seconds{resource,handler}   how long each call took
//	syncer_handler_panics_total{resource,handler}      calls that panicked
//	syncer_snapshot_objects_not_saved_total{resource}  objects left out of a snapshot written (runtime.SnapshotMetrics)
//	syncer_names{resource}                             names a syncer over names keeps (runtime.NamesMetrics)
//	syncer_names_refused{resource}                     of those, names the server refuses
//	syncer_lag_seconds{resource}                       how far behind the server the store was at the last lag probe (runtime.LagMetrics)
//	syncer_lag_probe_seconds{resource}                 the lag each probe measured (a histogram)
//	syncer_store_resource_version{resource}            the store's resourceVersion at the last probe
//	syncer_watch_stalls_total{resource}                watches restarted for delivering nothing while the store stayed behind
//
// The event type and every other label value are lower case ("added",
// "watchlist", "forbidden", "expired").
//
// NewFleet makes, the same way, the collectors of package fleet's
// Metrics, bound to a fleet by its name (fleet_shards_held,
// fleet_members, fleet_handovers_total, fleet_takeover_seconds; see
// FleetMetrics).
package prometheusmetrics
