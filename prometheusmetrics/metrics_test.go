package prometheusmetrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/syncer-gen/syncer-gen/prometheusmetrics"
	"github.com/syncer-gen/syncer-gen/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Every runtime.Metrics call lands in its series, under the resource the
// syncer was bound to, and two syncers keep apart.
func TestCallsLandInTheirSeries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := prometheusmetrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	cms, pods := m.For("configmaps/v1"), m.For("pods/v1")
	for range 3 {
		cms.EventReceived(watch.Added)
	}
	cms.EventReceived(watch.Bookmark)
	cms.EventReceived("ODD")
	pods.EventReceived(watch.Deleted)
	cms.Synced(runtime.ModeWatchList, 3, 1500*time.Millisecond)
	cms.ModeChanged(runtime.ModeWatchList)
	cms.ModeChanged(runtime.ModeList)
	cms.Error(runtime.KindForbidden)
	cms.Error(runtime.KindForbidden)
	pods.Error(runtime.KindNotFound)
	cms.Relisted(runtime.ReasonExpired)
	cms.Reconnected(runtime.ReasonWatchTimeout)
	cms.ObjectsStored(3)
	pods.ObjectsStored(7)
	cms.StoreBytes(12345)
	cms.HandlerQueueDepth("printer", 4)
	cms.HandlerCalled("printer", 2*time.Millisecond, 3*time.Millisecond)
	cms.HandlerPanicked("printer")
	cms.ReadWaited(runtime.WaitOpList, runtime.WaitObserved, 250*time.Millisecond)
	cms.ReadWaited(runtime.WaitOpGet, runtime.WaitFailedOpen, 0)
	cms.DriftRepaired(runtime.ReasonDriftStale)
	cms.DriftRepaired(runtime.ReasonDriftStale)
	pods.DriftRepaired(runtime.ReasonDriftGone)
	cms.(runtime.SnapshotMetrics).ObjectsNotSaved(2)
	cms.(runtime.NamesMetrics).Names(4, 1)
	cms.(runtime.LagMetrics).Lagged(1500*time.Millisecond, "12345")
	cms.(runtime.LagMetrics).WatchStalled()

	want := `
# HELP syncer_events_total Events read from watch streams and LIST pages, by type.
# TYPE syncer_events_total counter
syncer_events_total{resource="configmaps/v1",type="added"} 3
syncer_events_total{resource="configmaps/v1",type="bookmark"} 1
syncer_events_total{resource="configmaps/v1",type="deleted"} 0
syncer_events_total{resource="configmaps/v1",type="error"} 0
syncer_events_total{resource="configmaps/v1",type="modified"} 0
syncer_events_total{resource="configmaps/v1",type="odd"} 1
syncer_events_total{resource="pods/v1",type="added"} 0
syncer_events_total{resource="pods/v1",type="bookmark"} 0
syncer_events_total{resource="pods/v1",type="deleted"} 1
syncer_events_total{resource="pods/v1",type="error"} 0
syncer_events_total{resource="pods/v1",type="modified"} 0
# HELP syncer_errors_total Failures of list and watch requests and streams, by kind.
# TYPE syncer_errors_total counter
syncer_errors_total{kind="forbidden",resource="configmaps/v1"} 2
syncer_errors_total{kind="not-found",resource="pods/v1"} 1
# HELP syncer_mode 1 for the mode the syncer reads the initial state with, 0 for the other.
# TYPE syncer_mode gauge
syncer_mode{mode="list",resource="configmaps/v1"} 1
syncer_mode{mode="watchlist",resource="configmaps/v1"} 0
# HELP syncer_objects Objects in the syncer's store.
# TYPE syncer_objects gauge
syncer_objects{resource="configmaps/v1"} 3
syncer_objects{resource="pods/v1"} 7
# HELP syncer_store_bytes Bytes the syncer's store holds: an estimate kept as objects come and go (runtime.Store.Bytes).
# TYPE syncer_store_bytes gauge
syncer_store_bytes{resource="configmaps/v1"} 12345
syncer_store_bytes{resource="pods/v1"} 0
# HELP syncer_syncs_total Full (re)syncs completed, by how the initial state was read.
# TYPE syncer_syncs_total counter
syncer_syncs_total{mode="watchlist",resource="configmaps/v1"} 1
# HELP syncer_relists_total Full resyncs started, by reason.
# TYPE syncer_relists_total counter
syncer_relists_total{reason="expired",resource="configmaps/v1"} 1
# HELP syncer_reconnects_total Watches that ended and were opened again, by reason.
# TYPE syncer_reconnects_total counter
syncer_reconnects_total{reason="timeout",resource="configmaps/v1"} 1
# HELP syncer_handler_queue_depth Calls waiting for a handler.
# TYPE syncer_handler_queue_depth gauge
syncer_handler_queue_depth{handler="printer",resource="configmaps/v1"} 4
# HELP syncer_handler_panics_total Handler calls that panicked.
# TYPE syncer_handler_panics_total counter
syncer_handler_panics_total{handler="printer",resource="configmaps/v1"} 1
# HELP syncer_read_wait_fail_open_total Waits for the store that returned at once because resourceVersions do not compare (the read may miss the program's own writes).
# TYPE syncer_read_wait_fail_open_total counter
syncer_read_wait_fail_open_total{operation="get",resource="configmaps/v1"} 1
# HELP syncer_drift_repairs_total Objects a drift check found the store wrong about and repaired, by what was wrong (missing, stale, gone).
# TYPE syncer_drift_repairs_total counter
syncer_drift_repairs_total{reason="stale",resource="configmaps/v1"} 2
syncer_drift_repairs_total{reason="gone",resource="pods/v1"} 1
# HELP syncer_snapshot_objects_not_saved_total Objects left out of a snapshot written, each time, because they could not be encoded (runtime.SnapshotMetrics).
# TYPE syncer_snapshot_objects_not_saved_total counter
syncer_snapshot_objects_not_saved_total{resource="configmaps/v1"} 2
syncer_snapshot_objects_not_saved_total{resource="pods/v1"} 0
# HELP syncer_names Names a syncer over names (runtime.WithNames) keeps.
# TYPE syncer_names gauge
syncer_names{resource="configmaps/v1"} 4
syncer_names{resource="pods/v1"} 0
# HELP syncer_names_refused Names of a syncer over names that the server refuses to list or watch (runtime.NameError).
# TYPE syncer_names_refused gauge
syncer_names_refused{resource="configmaps/v1"} 1
syncer_names_refused{resource="pods/v1"} 0
# HELP syncer_lag_seconds How far behind the server the store was at the last lag probe, in seconds (runtime.WithLagProbe; 0: it held the server's state).
# TYPE syncer_lag_seconds gauge
syncer_lag_seconds{resource="configmaps/v1"} 1.5
syncer_lag_seconds{resource="pods/v1"} 0
# HELP syncer_store_resource_version The resourceVersion the store is at, at the last lag probe (runtime.WithLagProbe).
# TYPE syncer_store_resource_version gauge
syncer_store_resource_version{resource="configmaps/v1"} 12345
syncer_store_resource_version{resource="pods/v1"} 0
# HELP syncer_watch_stalls_total Watches restarted because they delivered nothing while a lag probe showed the store behind (runtime.WithLagProbe).
# TYPE syncer_watch_stalls_total counter
syncer_watch_stalls_total{resource="configmaps/v1"} 1
syncer_watch_stalls_total{resource="pods/v1"} 0
`
	names := []string{"syncer_events_total", "syncer_errors_total", "syncer_mode", "syncer_objects", "syncer_store_bytes", "syncer_syncs_total",
		"syncer_relists_total", "syncer_reconnects_total", "syncer_handler_queue_depth", "syncer_handler_panics_total", "syncer_read_wait_fail_open_total",
		"syncer_drift_repairs_total", "syncer_snapshot_objects_not_saved_total", "syncer_names", "syncer_names_refused", "syncer_lag_seconds", "syncer_store_resource_version", "syncer_watch_stalls_total"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}

	// The histograms: one observation each, in seconds.
	sum := histogramSum(t, reg, "syncer_sync_duration_seconds", "configmaps/v1")
	if sum != 1.5 {
		t.Errorf("syncer_sync_duration_seconds sum %v, want 1.5", sum)
	}
	if sum := histogramSum(t, reg, "syncer_handler_wait_seconds", "configmaps/v1"); sum != 0.002 {
		t.Errorf("syncer_handler_wait_seconds sum %v, want 0.002", sum)
	}
	if sum := histogramSum(t, reg, "syncer_handler_latency_seconds", "configmaps/v1"); sum != 0.003 {
		t.Errorf("syncer_handler_latency_seconds sum %v, want 0.003", sum)
	}
	if n, err := testutil.GatherAndCount(reg, "syncer_read_wait_seconds"); err != nil || n != 2 {
		t.Errorf("syncer_read_wait_seconds has %d series, want 2 (list observed, get fail-open): %v", n, err)
	}
	if n := histogramCount(t, reg, "syncer_sync_duration_seconds", "configmaps/v1"); n != 1 {
		t.Errorf("syncer_sync_duration_seconds count %d, want 1", n)
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP syncer_sync_objects Objects in the last completed full (re)sync.
# TYPE syncer_sync_objects gauge
syncer_sync_objects{resource="configmaps/v1"} 3
syncer_sync_objects{resource="pods/v1"} 0
`), "syncer_sync_objects"); err != nil {
		t.Error(err)
	}

	// Forget drops a resource's series and keeps the others.
	m.Forget("configmaps/v1")
	if n, err := testutil.GatherAndCount(reg, "syncer_objects"); err != nil || n != 1 {
		t.Errorf("after Forget, syncer_objects has %d series, want 1 (pods)", n)
	}
}

// A second New on one Registerer fails instead of double counting.
func TestNewTwiceFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := prometheusmetrics.New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := prometheusmetrics.New(reg); err == nil {
		t.Error("second New on the same Registerer succeeded")
	}
	if _, err := prometheusmetrics.New(reg, prometheusmetrics.WithNamespace("other")); err != nil {
		t.Errorf("New with another namespace: %v", err)
	}
	if _, err := prometheusmetrics.New(nil); err == nil {
		t.Error("New(nil) succeeded")
	}
}

// Driven by a Syncer's own store and handler goroutines: objects stored,
// handler calls timed under the handler's name, a panic counted.
func TestDrivenBySyncer(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := prometheusmetrics.MustNew(reg)
	res := runtime.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}
	s, d := runtime.NewDriver[*corev1.ConfigMap](res, runtime.WithMetrics(m.For(res.String())))
	s.AddHandler(runtime.HandlerFuncs[*corev1.ConfigMap]{
		AddFunc: func(cm *corev1.ConfigMap) {
			if cm.Name == "boom" {
				panic("boom")
			}
		},
	}, runtime.WithHandlerName("printer"))
	cm := func(name, rv string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: rv}}
	}
	d.Add(cm("a", "1"), cm("b", "2"), cm("boom", "3"))
	d.Sync()
	d.Delete(cm("a", "4"))

	want := `
# HELP syncer_objects Objects in the syncer's store.
# TYPE syncer_objects gauge
syncer_objects{resource="configmaps/v1"} 2
# HELP syncer_handler_panics_total Handler calls that panicked.
# TYPE syncer_handler_panics_total counter
syncer_handler_panics_total{handler="printer",resource="configmaps/v1"} 1
# HELP syncer_handler_queue_depth Calls waiting for a handler.
# TYPE syncer_handler_queue_depth gauge
syncer_handler_queue_depth{handler="printer",resource="configmaps/v1"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"syncer_objects", "syncer_handler_panics_total", "syncer_handler_queue_depth"); err != nil {
		t.Error(err)
	}
	// The store's bytes, as the store tells them after the last change.
	if got, want := gaugeValue(t, reg, "syncer_store_bytes", res.String()), float64(s.Store().Bytes()); got != want || want <= 0 {
		t.Errorf("syncer_store_bytes = %v, want the store's %v (> 0)", got, want)
	}
	// Every call is timed, the one that panicked too: 3 adds, the sync,
	// the delete.
	if n := histogramCount(t, reg, "syncer_handler_latency_seconds", res.String()); n != 5 {
		t.Errorf("syncer_handler_latency_seconds count %d, want 5 (3 adds, sync, delete)", n)
	}
}
