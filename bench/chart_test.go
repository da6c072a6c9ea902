package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/syncer-gen/syncer-gen/bench/internal/driver"
)

// figures is a summary of a contender with the figures the charts show; NaN for "-".
func figures(name string, syncS, rssMiB, allocMiB, readMiB, cpuPer1k, lagP99ms float64) driver.Summary {
	s := driver.Find(nil, name)
	s.Runs, s.SyncSeconds, s.HWMSyncMiB, s.AllocMiB, s.ReadMiB, s.CPUPer1k, s.LagP99ms = 3, syncS, rssMiB, allocMiB, readMiB, cpuPer1k, lagP99ms
	return s
}

// parsed is what a chart's SVG holds: each panel's bars and references, by contender.
type parsed struct {
	panels []string
	bars   map[string][]string // by panel
	kinds  map[string]string   // a bar's class, by contender
	refs   map[string][]string
}

// parseSVG reads svg to its end as XML, failing on any error.
func parseSVG(t *testing.T, svg []byte) parsed {
	t.Helper()
	p := parsed{bars: map[string][]string{}, kinds: map[string]string{}, refs: map[string][]string{}}
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	var panel string
	root := true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, svg)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root {
			if el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg" {
				t.Fatalf("root element %v, want svg", el.Name)
			}
			root = false
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch {
		case el.Name.Local == "g" && attr["class"] == "panel":
			panel = attr["data-metric"]
			p.panels = append(p.panels, panel)
		case el.Name.Local == "rect" && strings.HasPrefix(attr["class"], "bar "):
			p.bars[panel] = append(p.bars[panel], attr["data-contender"])
			p.kinds[attr["data-contender"]] = strings.TrimPrefix(attr["class"], "bar ")
		case el.Name.Local == "line" && attr["class"] == "ref":
			p.refs[panel] = append(p.refs[panel], attr["data-contender"])
		}
	}
	return p
}

// A chart from fixed figures is well-formed XML, with one bar per
// contender in each panel (those without the figure left out), each
// coloured by what it is, and its references marked.
func TestChart(t *testing.T) {
	nan := math.NaN()
	c := contendersChart([]string{`setup: <"quoted"> & escaped`}, []driver.Summary{
		figures(floorDecode, 0.7, 33, 74, nan, 0.175, 7.5),
		figures(keepAll, 0.8, 99, 74, nan, nan, nan),
		figures(clientGoWatch, 1.0, 136, 193, nan, 0.243, 6),
		figures(ours, 0.8, 101, 75, nan, 0.205, 6),
		driver.Find(nil, oursStrip), // did not run: no bar
	})
	p := parseSVG(t, c.SVG())
	if len(p.panels) != len(c.Panels) {
		t.Fatalf("panels %q, want %d", p.panels, len(c.Panels))
	}
	all := []string{floorDecode, keepAll, clientGoWatch, ours}
	if got := p.bars["time to synced, s"]; !slices.Equal(got, all) {
		t.Errorf("time bars %q, want one per contender %q", got, all)
	}
	if got, want := p.bars["steady state: CPU s per 1,000 events"], []string{floorDecode, clientGoWatch, ours}; !slices.Equal(got, want) {
		t.Errorf("CPU bars %q, want %q", got, want)
	}
	for name, want := range map[string]string{floorDecode: "floor", keepAll: "floor", clientGoWatch: "client-go", ours: "ours"} {
		if p.kinds[name] != want {
			t.Errorf("%s is drawn as %q, want %q", name, p.kinds[name], want)
		}
	}
	if got, want := p.refs["peak RSS at sync, MiB"], []string{keepAll, clientGoWatch}; !slices.Equal(got, want) {
		t.Errorf("RSS references %q, want %q", got, want)
	}
	if !bytes.Contains(c.SVG(), []byte("&lt;&#34;quoted&#34;&gt; &amp; escaped")) {
		t.Error("the run's line is not escaped")
	}
}

// charts draws a chart for each part that ran, from its results.
func TestChartsOfAnOutcome(t *testing.T) {
	r := func(name string, s float64) driver.Result {
		return driver.Result{Contender: name, Sync: driver.SyncReport{Objects: 10, SyncSeconds: s, HWMBytes: 50 * driver.MiB, TotalAllocBytes: 20 * driver.MiB}}
	}
	out := outcome{main: []driver.Result{r(floorDecode, 1), r(ours, 1.1), r(clientGoWatch, 1.3)}, names: []string{floorDecode, ours, clientGoWatch},
		warm:     []driver.Result{r(oursWarm, 0.2), r(ours, 1)},
		shards:   []shardRun{{k: 1, alone: 1, aloneRSS: 100 * driver.MiB}, {k: 4, alone: 0.3, aloneRSS: 50 * driver.MiB}},
		waves:    []serverRun{{contender: ours, cpu: time.Second}, {contender: clientGoList, cpu: 2 * time.Second}},
		restarts: []restartRun{{contender: restartIdle, cpu: time.Second}, {contender: ours, cpu: time.Second}, {contender: clientGoWatch, cpu: 3 * time.Second}},
		fleet:    []fleetRun{{takeover: 6.5}, {takeover: 6.7}},
		projection: projectionOutcome{pods: []driver.Result{r(floorRead, 0.5), r(clientGoStrip, 2), r(oursStrip, 1)},
			crs: []driver.Result{r(ours, 1)}, agents: []agentRun{{nodeName: agentNoNode, peak: 15 * driver.MiB}, {nodeName: agentNode, pods: 250, peak: 25 * driver.MiB}}}}
	out.projection.pods[2].Sync.StoreBytes = 30 * driver.MiB
	out.metadata = metadataOutcome{meta: []driver.Result{r(oursMetadata, 0.05), r(crMetadata, 0.07), r(ours, 2)},
		unstructured: []driver.Result{r(oursUnstructured, 1.5), r(clientGoDynamic, 4.5)}}
	out.metadata.meta[0].Server = &driver.ServerCost{CPU: 40 * time.Millisecond}
	out.metadata.meta[1].Server = &driver.ServerCost{CPU: 50 * time.Millisecond}
	cs := charts([]string{"run"}, out)
	want := []string{partContenders, partWarm, partShard, partWave, partRestart, partFleet, partProjection, partMetadata}
	for _, part := range want {
		if cs[part] == nil {
			t.Errorf("no chart of the %s part", part)
		}
	}
	if len(cs) != len(want) {
		t.Fatalf("charts of %d parts, want %d: %v", len(cs), len(want), cs)
	}
	for part, metric := range map[string]string{partWarm: "time to synced, s", partShard: "one shard alone: time to synced, s",
		partWave: "apiserver CPU, s", partRestart: "apiserver CPU, s", partProjection: "pods: time to synced, s"} {
		got := parseSVG(t, cs[part].SVG()).bars[metric]
		wantBars := map[string][]string{partWarm: {oursWarm, ours}, partShard: {"unsharded", "shard of 4"},
			partWave: {ours, clientGoList}, partRestart: {ours, clientGoWatch}, partProjection: {floorRead, clientGoStrip, oursStrip}}[part]
		if !slices.Equal(got, wantBars) {
			t.Errorf("%s bars %q, want %q", part, got, wantBars)
		}
	}
	p := parseSVG(t, cs[partProjection].SVG())
	if got := p.bars["pods: what our store holds (Store.Bytes), MiB"]; !slices.Equal(got, []string{oursStrip}) {
		t.Errorf("projection: store bars %q, want ours-strip's alone", got)
	}
	if got := p.bars["examples/builtin as a node agent: peak RSS, MiB"]; !slices.Equal(got, []string{"node agent, idle", "node agent"}) {
		t.Errorf("projection: node agent's bars %q", got)
	}
	out.projection.agents = nil
	if bytes.Contains(charts([]string{"run"}, out)[partProjection].SVG(), []byte("as a node agent")) {
		t.Error("projection: a node agent's panel where none ran")
	}
	if got := p.bars["widgets: time to synced, s"]; !slices.Equal(got, []string{"widgets: " + ours}) {
		t.Errorf("projection: widgets' bars %q", got)
	}
	m := parseSVG(t, cs[partMetadata].SVG())
	if got := m.bars["metadata: apiserver CPU, s"]; !slices.Equal(got, []string{oursMetadata, crMetadata}) {
		t.Errorf("metadata: apiserver CPU bars %q, want those measured", got)
	}
	if got := m.refs["metadata: time to synced, s"]; !slices.Equal(got, []string{crMetadata}) {
		t.Errorf("metadata: time references %q, want the peers that ran", got)
	}
	u := "unstructured: "
	if got := m.bars["unstructured: time to synced, s"]; !slices.Equal(got, []string{u + oursUnstructured, u + clientGoDynamic}) {
		t.Errorf("metadata: unstructured bars %q", got)
	}
	for name, kind := range map[string]string{oursMetadata: "ours", crMetadata: "client-go", u + clientGoDynamic: "client-go", u + oursUnstructured: "ours"} {
		if m.kinds[name] != kind {
			t.Errorf("metadata: %s drawn as %q, want %q", name, m.kinds[name], kind)
		}
	}
	if got := cs[partRestart].Panels[0].Bars[0].Value; got != 0 {
		t.Errorf("restart: ours drawn at %v s, want 0 over the start-up's own CPU", got)
	}
	dir := t.TempDir()
	if err := writeCharts(dir, []string{"run"}, out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bench-contenders.svg", "bench-warm.svg", "bench-shard.svg", "bench-wave.svg", "bench-restart.svg", "bench-fleet.svg", "bench-projection.svg", "bench-metadata.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
