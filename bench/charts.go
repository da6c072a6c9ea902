package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// The chart of each part of the benchmark (see chart.go for how one is drawn).

// The rows of the parts' charts name their own bars.
func (s serverSummary) Label() (string, bool)  { return s.contender, s.runs > 0 }
func (s restartSummary) Label() (string, bool) { return s.contender, s.runs > 0 }
func (s shardSummary) Label() (string, bool)   { return shardBar(s.k), s.runs > 0 }

func contendersChart(run []string, ss []driver.Summary) *driver.Chart {
	return &driver.Chart{Title: "Contenders: medians over the rounds (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("time to synced, s", 3, ss, driver.SyncTime, floorDecode, clientGoWatch),
		driver.PanelOf("peak RSS at sync, MiB", 1, ss, driver.SyncRSS, keepAll, clientGoWatch),
		driver.PanelOf("idle peak RSS (its program on no object), MiB", 1, ss, idleRSS, keepAll, clientGoWatch),
		driver.PanelOf("allocated to sync, MiB", 0, ss, driver.Allocated, floorDecode, clientGoWatch),
		driver.PanelOf("steady state: CPU s per 1,000 events", 3, ss, func(s driver.Summary) float64 { return s.CPUPer1k }, floorDecode, clientGoWatch),
		driver.PanelOf("steady state: lag p99, ms", 1, ss, func(s driver.Summary) float64 { return s.LagP99ms }, floorDecode, clientGoWatch),
	}}
}

func serverChart(run []string, ss []serverSummary) *driver.Chart {
	return serverCostChart("Server cost: what kube-apiserver pays for the clients (lower is better)",
		"slowest client's time to synced, s", run, ss, clientGoWatch)
}

// serverCostChart draws what kube-apiserver paid for each row's clients.
func serverCostChart(title, slowest string, run []string, ss []serverSummary, refs ...string) *driver.Chart {
	p := func(metric string, decimals int, f func(serverSummary) float64) driver.Panel {
		return driver.PanelOf(metric, decimals, ss, f, refs...)
	}
	return &driver.Chart{Title: title, Run: run, Panels: []driver.Panel{
		p("apiserver CPU, s", 2, func(s serverSummary) float64 { return s.cpu }),
		p("apiserver peak RSS over idle, MiB", 1, func(s serverSummary) float64 { return s.peakOverMiB }),
		p("apiserver allocated, MiB", 0, func(s serverSummary) float64 { return s.allocatedMiB }),
		p(slowest, 3, func(s serverSummary) float64 { return s.slowest }),
	}}
}

func waveChart(run []string, ss []serverSummary) *driver.Chart {
	return serverCostChart("Node-agent wave: 100 agents restarted at once, what kube-apiserver pays (lower is better)",
		"slowest agent's time to synced, s", run, ss, clientGoWatch, clientGoList)
}

func restartChart(run []string, ss []restartSummary) *driver.Chart {
	p := func(metric string, f func(restartSummary) float64) driver.Panel {
		return driver.PanelOf(metric, 2, ss, f, clientGoWatch, clientGoList)
	}
	return &driver.Chart{Title: "kube-apiserver restarted under 100 running agents: its cost over its own start-up (lower is better)", Run: run, Panels: []driver.Panel{
		p("apiserver CPU, s", func(s restartSummary) float64 { return s.cpu }),
		p("apiserver allocated, MiB", func(s restartSummary) float64 { return s.allocated }),
	}}
}

// shardBar names the bar of K shards.
func shardBar(k int) string {
	if k == 1 {
		return "unsharded"
	}
	return fmt.Sprintf("shard of %d", k)
}

func shardChart(run []string, ss []shardSummary) *driver.Chart {
	p := func(metric string, decimals int, f func(shardSummary) float64) driver.Panel {
		return driver.PanelOf(metric, decimals, ss, f, shardBar(1))
	}
	return &driver.Chart{Title: "Shards: one shard of K against the unsharded syncer (lower is better)", Run: run, Panels: []driver.Panel{
		p("one shard alone: time to synced, s", 3, func(s shardSummary) float64 { return s.alone }),
		p("one shard alone: peak RSS, MiB", 1, func(s shardSummary) float64 { return s.aloneMiB }),
		p("apiserver CPU for the K shards, s", 2, func(s shardSummary) float64 { return s.cpu }),
	}}
}

func fleetChart(run []string, runs []fleetRun) *driver.Chart {
	pn := driver.Panel{Metric: fmt.Sprintf("s from a SIGKILL to its shards synced elsewhere (lease %s)", fleetLease), Decimals: 2}
	for i, r := range runs {
		pn.Bars = append(pn.Bars, driver.Bar{Contender: fmt.Sprintf("round %d", i+1), Value: r.takeover})
	}
	return &driver.Chart{Title: "Fleet: 3 replicas over 8 shards, one killed (lower is better)", Run: run, Panels: []driver.Panel{pn}}
}

func crdChart(run []string, ss []driver.Summary) *driver.Chart {
	return &driver.Chart{Title: "A CRD (JSON): medians over the rounds (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("time to synced, s", 3, ss, driver.SyncTime, clientGoWatch),
		driver.PanelOf("peak RSS at sync, MiB", 1, ss, driver.SyncRSS, clientGoWatch),
		driver.PanelOf("idle peak RSS (its program on no widget), MiB", 1, ss, idleRSS, clientGoWatch),
		driver.PanelOf("allocated to sync, MiB", 0, ss, driver.Allocated, clientGoWatch),
	}}
}

func warmChart(run []string, ss []driver.Summary) *driver.Chart {
	return &driver.Chart{Title: "Warm restart after 1% / 1% / 1% churn: medians over the rounds (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("time to synced, s", 3, ss, driver.SyncTime, ours, clientGoWatch),
		driver.PanelOf("read from the server, MiB", 2, ss, func(s driver.Summary) float64 { return s.ReadMiB }, ours, clientGoWatch),
		driver.PanelOf("peak RSS at sync, MiB", 1, ss, driver.SyncRSS, ours, clientGoWatch),
	}}
}

// idleRSS is a contender's idle peak RSS.
func idleRSS(s driver.Summary) float64 { return s.IdleMiB }

// charts returns the chart of each part that ran, by part.
func charts(run []string, out outcome) map[string]*driver.Chart {
	m := map[string]*driver.Chart{}
	if len(out.main) > 0 {
		m[partContenders] = contendersChart(run, driver.Summarize(out.main, out.names))
	}
	if len(out.server) > 0 {
		m[partServerCost] = serverChart(run, driver.Mapped(serverRows, func(n string) serverSummary { return summarizeServer(out.server, n) }))
	}
	if len(out.crd) > 0 {
		m[partCRD] = crdChart(run, driver.Summarize(out.crd, driver.Mapped(crdContenders, func(c driver.Contender) string { return c.Name })))
	}
	if len(out.warm) > 0 {
		m[partWarm] = warmChart(run, driver.Summarize(out.warm, namesOf(warmContenders)))
	}
	if len(out.shards) > 0 {
		m[partShard] = shardChart(run, driver.Mapped(shardCounts, func(k int) shardSummary { return summarizeShards(out.shards, k) }))
	}
	if len(out.waves) > 0 {
		m[partWave] = waveChart(run, driver.Mapped(waveRows, func(n string) serverSummary { return summarizeServer(out.waves, n) }))
	}
	if len(out.restarts) > 0 {
		m[partRestart] = restartChart(run, driver.Mapped(restartRows, func(n string) restartSummary { return summarizeRestart(out.restarts, n) }))
	}
	if len(out.fleet) > 0 {
		m[partFleet] = fleetChart(run, out.fleet)
	}
	if p := out.projection; len(p.pods) > 0 || len(p.crs) > 0 {
		m[partProjection] = projectionChart(run, driver.Summarize(p.pods, namesOf(projContenders)), driver.Summarize(p.crs, namesOf(projCRDContenders)),
			[]agentSummary{summarizeAgent(p.agents, agentNoNode), summarizeAgent(p.agents, agentNode)})
	}
	if len(out.named.runs) > 0 {
		m[partNamed] = namedChart(run, driver.Summarize(out.named.runs, namesOf(namedContenders())))
	}
	if md := out.metadata; len(md.meta) > 0 || len(md.unstructured) > 0 {
		m[partMetadata] = metadataChart(run, driver.Summarize(md.meta, namesOf(metaContenders)), driver.Summarize(md.unstructured, namesOf(unstructuredContenders)))
	}
	return m
}

// projectionChart: the pods' figures against the floors and client-go with
// its stripping transform, the bytes our stores hold, and the widgets'
// projected syncer against the full one.
func projectionChart(run []string, pods, crs []driver.Summary, agent []agentSummary) *driver.Chart {
	store := func(s driver.Summary) float64 { return s.StoreMiB }
	crPanel := func(metric string, decimals int, f func(driver.Summary) float64) driver.Panel {
		p := driver.PanelOf(metric, decimals, crs, f, ours)
		for i := range p.Bars {
			p.Bars[i].Contender = "widgets: " + p.Bars[i].Contender
		}
		p.Refs = []string{"widgets: " + ours}
		return p
	}
	c := &driver.Chart{Title: "Projection: Deployment-shaped pods and a CRD, projected against whole objects (lower is better)", Run: run, Panels: []driver.Panel{
		driver.PanelOf("pods: time to synced, s", 3, pods, driver.SyncTime, floorRead, clientGoStrip),
		driver.PanelOf("pods: peak RSS at sync, MiB", 1, pods, driver.SyncRSS, clientGoStrip),
		driver.PanelOf("pods: allocated to sync, MiB", 0, pods, driver.Allocated, floorDecode, clientGoStrip),
		driver.PanelOf("pods: steady state, CPU s per 1,000 events", 3, pods, func(s driver.Summary) float64 { return s.CPUPer1k }, floorDecode),
		driver.PanelOf("pods: what our store holds (Store.Bytes), MiB", 1, pods, store),
		crPanel("widgets: time to synced, s", 3, driver.SyncTime),
		crPanel("widgets: peak RSS at sync, MiB", 1, driver.SyncRSS),
		crPanel("widgets: what our store holds (Store.Bytes), MiB", 1, store),
	}}
	if peak := driver.PanelOf("examples/builtin as a node agent: peak RSS, MiB", 1, agent, func(s agentSummary) float64 { return s.peakMiB }); len(peak.Bars) > 0 {
		c.Panels = append(c.Panels, peak,
			driver.PanelOf("examples/builtin as a node agent: peak RssAnon, MiB", 1, agent, func(s agentSummary) float64 { return s.anonMiB }))
	}
	return c
}

// writeCharts writes dir/bench-<part>.svg for each part that ran.
func writeCharts(dir string, run []string, out outcome) error {
	for part, c := range charts(run, out) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bench-"+part+".svg"), c.SVG(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
