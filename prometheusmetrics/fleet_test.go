package prometheusmetrics_test

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/syncer-gen/syncer-gen/fleet"
	"github.com/syncer-gen/syncer-gen/prometheusmetrics"
)

// Every fleet.Metrics call lands in its series, under the fleet it was
// bound to, and two fleets keep apart.
func TestFleetCallsLandInTheirSeries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := prometheusmetrics.NewFleet(reg)
	if err != nil {
		t.Fatal(err)
	}
	widgets, gadgets := m.For("widgets"), m.For("gadgets")
	widgets.ShardsHeld(3)
	widgets.Members(3)
	gadgets.ShardsHeld(8)
	for range 3 {
		widgets.Handover(fleet.Acquired)
	}
	widgets.Handover(fleet.Released)
	gadgets.Handover(fleet.Lost)
	widgets.TookOver(fleet.FromExpiry, 2500*time.Millisecond)
	widgets.TookOver(fleet.FromRelease, 300*time.Millisecond)

	want := `
# HELP fleet_shards_held Shards this replica works on now.
# TYPE fleet_shards_held gauge
fleet_shards_held{fleet="gadgets"} 8
fleet_shards_held{fleet="widgets"} 3
# HELP fleet_members Live replicas this replica sees, itself included.
# TYPE fleet_members gauge
fleet_members{fleet="gadgets"} 0
fleet_members{fleet="widgets"} 3
# HELP fleet_handovers_total Shards acquired, released or lost by this replica.
# TYPE fleet_handovers_total counter
fleet_handovers_total{fleet="gadgets",kind="acquired"} 0
fleet_handovers_total{fleet="gadgets",kind="lost"} 1
fleet_handovers_total{fleet="gadgets",kind="released"} 0
fleet_handovers_total{fleet="widgets",kind="acquired"} 3
fleet_handovers_total{fleet="widgets",kind="lost"} 0
fleet_handovers_total{fleet="widgets",kind="released"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "fleet_shards_held", "fleet_members", "fleet_handovers_total"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "fleet_takeover_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			from := ""
			for _, l := range s.GetLabel() {
				if l.GetName() == "from" {
					from = l.GetValue()
				}
			}
			sums[from] += s.GetHistogram().GetSampleSum()
		}
	}
	if sums["expired"] != 2.5 || sums["released"] != 0.3 {
		t.Errorf("fleet_takeover_seconds sums %v, want expired 2.5 and released 0.3", sums)
	}

	if _, err := prometheusmetrics.NewFleet(reg); err == nil {
		t.Error("second NewFleet on the same Registerer succeeded")
	}
	// The syncers' collectors and the fleets' live side by side.
	if _, err := prometheusmetrics.New(reg); err != nil {
		t.Errorf("New after NewFleet: %v", err)
	}
}
