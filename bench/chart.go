package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// The charts: one SVG per part of the benchmark that ran, drawn from the
// run's medians, so that a reader sees where ours stands between the
// floors and client-go. Each figure of a part is a panel of horizontal
// bars, one per contender, coloured by what the contender is (a floor,
// client-go, ours); dashed lines across the panel mark the references its
// ratios are taken against.

// chart is one part's figures.
type chart struct {
	title  string
	run    []string // the run the figures come from, one line each
	panels []panel
}

// panel is one figure of every contender that has it.
type panel struct {
	metric   string // what is measured, with its unit; lower is better
	decimals int
	bars     []bar
	refs     []string // contenders whose values are marked across the panel
}

type bar struct {
	contender string
	value     float64
}

// kindOf tells what a contender is, for its colour: "floor", "client-go" or "ours".
func kindOf(contender string) string {
	switch {
	case strings.HasPrefix(contender, "floor-") || contender == keepAll:
		return "floor"
	case strings.HasPrefix(contender, "client-go"):
		return "client-go"
	}
	return "ours"
}

var kindColours = map[string]string{"floor": "#9e9e9e", "client-go": "#4c78a8", "ours": "#e45756"}

// row is a summary of one row of a part: a contender, or a shard count.
type row interface {
	// label names the row's bars and tells whether the row ran.
	label() (name string, ran bool)
}

func (s summary) label() (string, bool)        { return s.contender, s.runs > 0 }
func (s serverSummary) label() (string, bool)  { return s.contender, s.runs > 0 }
func (s restartSummary) label() (string, bool) { return s.contender, s.runs > 0 }
func (s shardSummary) label() (string, bool)   { return shardBar(s.k), s.runs > 0 }

// panelOf makes a panel of f over the rows of ss that ran.
func panelOf[S row](metric string, decimals int, ss []S, f func(S) float64, refs ...string) panel {
	p := panel{metric: metric, decimals: decimals, refs: refs}
	for _, s := range ss {
		if n, ran := s.label(); ran {
			if v := f(s); !math.IsNaN(v) {
				p.bars = append(p.bars, bar{n, v})
			}
		}
	}
	return p
}

// mapped returns f of each key, in order.
func mapped[K, S any](keys []K, f func(K) S) []S {
	out := make([]S, 0, len(keys))
	for _, k := range keys {
		out = append(out, f(k))
	}
	return out
}

func syncTime(s summary) float64  { return s.syncSeconds }
func syncRSS(s summary) float64   { return s.hwmSyncMiB }
func allocated(s summary) float64 { return s.allocMiB }

func contendersChart(run []string, ss []summary) *chart {
	return &chart{title: "Contenders: medians over the rounds (lower is better)", run: run, panels: []panel{
		panelOf("time to synced, s", 3, ss, syncTime, floorDecode, clientGoWatch),
		panelOf("peak RSS at sync, MiB", 1, ss, syncRSS, keepAll, clientGoWatch),
		panelOf("allocated to sync, MiB", 0, ss, allocated, floorDecode, clientGoWatch),
		panelOf("steady state: CPU s per 1,000 events", 3, ss, func(s summary) float64 { return s.cpuPer1k }, floorDecode, clientGoWatch),
		panelOf("steady state: lag p99, ms", 1, ss, func(s summary) float64 { return s.lagP99ms }, floorDecode, clientGoWatch),
	}}
}

func serverChart(run []string, ss []serverSummary) *chart {
	return serverCostChart("Server cost: what kube-apiserver pays for the clients (lower is better)",
		"slowest client's time to synced, s", run, ss, clientGoWatch)
}

// serverCostChart draws what kube-apiserver paid for each row's clients.
func serverCostChart(title, slowest string, run []string, ss []serverSummary, refs ...string) *chart {
	p := func(metric string, decimals int, f func(serverSummary) float64) panel {
		return panelOf(metric, decimals, ss, f, refs...)
	}
	return &chart{title: title, run: run, panels: []panel{
		p("apiserver CPU, s", 2, func(s serverSummary) float64 { return s.cpu }),
		p("apiserver peak RSS over idle, MiB", 1, func(s serverSummary) float64 { return s.peakOverMiB }),
		p("apiserver allocated, MiB", 0, func(s serverSummary) float64 { return s.allocatedMiB }),
		p(slowest, 3, func(s serverSummary) float64 { return s.slowest }),
	}}
}

func waveChart(run []string, ss []serverSummary) *chart {
	return serverCostChart("Node-agent wave: 100 agents restarted at once, what kube-apiserver pays (lower is better)",
		"slowest agent's time to synced, s", run, ss, clientGoWatch, clientGoList)
}

func restartChart(run []string, ss []restartSummary) *chart {
	p := func(metric string, f func(restartSummary) float64) panel {
		return panelOf(metric, 2, ss, f, clientGoWatch, clientGoList)
	}
	return &chart{title: "kube-apiserver restarted under 100 running agents: its cost over its own start-up (lower is better)", run: run, panels: []panel{
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

func shardChart(run []string, ss []shardSummary) *chart {
	p := func(metric string, decimals int, f func(shardSummary) float64) panel {
		return panelOf(metric, decimals, ss, f, shardBar(1))
	}
	return &chart{title: "Shards: one shard of K against the unsharded syncer (lower is better)", run: run, panels: []panel{
		p("one shard alone: time to synced, s", 3, func(s shardSummary) float64 { return s.alone }),
		p("one shard alone: peak RSS, MiB", 1, func(s shardSummary) float64 { return s.aloneMiB }),
		p("apiserver CPU for the K shards, s", 2, func(s shardSummary) float64 { return s.cpu }),
	}}
}

func fleetChart(run []string, runs []fleetRun) *chart {
	pn := panel{metric: fmt.Sprintf("s from a SIGKILL to its shards synced elsewhere (lease %s)", fleetLease), decimals: 2}
	for i, r := range runs {
		pn.bars = append(pn.bars, bar{fmt.Sprintf("round %d", i+1), r.takeover})
	}
	return &chart{title: "Fleet: 3 replicas over 8 shards, one killed (lower is better)", run: run, panels: []panel{pn}}
}

func crdChart(run []string, ss []summary) *chart {
	return &chart{title: "A CRD (JSON): medians over the rounds (lower is better)", run: run, panels: []panel{
		panelOf("time to synced, s", 3, ss, syncTime, clientGoWatch),
		panelOf("peak RSS at sync, MiB", 1, ss, syncRSS, clientGoWatch),
		panelOf("allocated to sync, MiB", 0, ss, allocated, clientGoWatch),
	}}
}

func warmChart(run []string, ss []summary) *chart {
	return &chart{title: "Warm restart after 1% / 1% / 1% churn: medians over the rounds (lower is better)", run: run, panels: []panel{
		panelOf("time to synced, s", 3, ss, syncTime, ours, clientGoWatch),
		panelOf("read from the server, MiB", 2, ss, func(s summary) float64 { return s.readMiB }, ours, clientGoWatch),
		panelOf("peak RSS at sync, MiB", 1, ss, syncRSS, ours, clientGoWatch),
	}}
}

// charts returns the chart of each part that ran, by part.
func charts(run []string, out outcome) map[string]*chart {
	m := map[string]*chart{}
	if len(out.main) > 0 {
		m[partContenders] = contendersChart(run, summarize(out.main, out.names))
	}
	if len(out.server) > 0 {
		m[partServerCost] = serverChart(run, mapped(serverRows, func(n string) serverSummary { return summarizeServer(out.server, n) }))
	}
	if len(out.crd) > 0 {
		m[partCRD] = crdChart(run, summarize(out.crd, mapped(crdContenders, func(c contender) string { return c.name })))
	}
	if len(out.warm) > 0 {
		m[partWarm] = warmChart(run, summarize(out.warm, []string{oursWarm, ours, clientGoWatch}))
	}
	if len(out.shards) > 0 {
		m[partShard] = shardChart(run, mapped(shardCounts, func(k int) shardSummary { return summarizeShards(out.shards, k) }))
	}
	if len(out.waves) > 0 {
		m[partWave] = waveChart(run, mapped(waveRows, func(n string) serverSummary { return summarizeServer(out.waves, n) }))
	}
	if len(out.restarts) > 0 {
		m[partRestart] = restartChart(run, mapped(restartRows, func(n string) restartSummary { return summarizeRestart(out.restarts, n) }))
	}
	if len(out.fleet) > 0 {
		m[partFleet] = fleetChart(run, out.fleet)
	}
	return m
}

// writeCharts writes dir/bench-<part>.svg for each part that ran.
func writeCharts(dir string, run []string, out outcome) error {
	for part, c := range charts(run, out) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "bench-"+part+".svg"), c.svg(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Layout, in pixels.
const (
	chartWidth = 820
	labelWidth = 190 // the contenders' names
	barsWidth  = 520 // the longest bar; its value is written after it
	barHeight  = 16
	barStep    = 21
	lineHeight = 16
)

// svg renders the chart.
func (c *chart) svg() []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s)) // writing to a bytes.Buffer does not fail
		return e.String()
	}
	y := 28
	var body bytes.Buffer
	fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", y, esc(c.title))
	for _, l := range wrap(c.run, 130) {
		y += lineHeight
		fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s</text>\n", y, esc(l))
	}
	y += 22
	x := 10
	kinds := map[string]bool{}
	for _, p := range c.panels {
		for _, br := range p.bars {
			kinds[kindOf(br.contender)] = true
		}
	}
	for _, k := range []string{"floor", "ours", "client-go"} {
		if !kinds[k] {
			continue
		}
		fmt.Fprintf(&body, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
			x, y-10, kindColours[k], x+16, y, k)
		x += 100
	}
	fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\" fill=\"#555\">- - - a reference the ratios are taken against</text>\n", x, y)
	for _, p := range c.panels {
		y += 30
		fmt.Fprintf(&body, "<g class=\"panel\" data-metric=\"%s\">\n", esc(p.metric))
		fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n", y, esc(p.metric))
		top := y + 8
		scale := 0.0
		for _, br := range p.bars {
			scale = max(scale, br.value)
		}
		if scale > 0 {
			scale = barsWidth / scale
		}
		for i, br := range p.bars {
			by := top + i*barStep
			w := br.value * scale
			fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", labelWidth-6, by+barHeight-3, esc(br.contender))
			fmt.Fprintf(&body, "<rect class=\"bar %s\" data-contender=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				kindOf(br.contender), esc(br.contender), labelWidth, by, w, barHeight, kindColours[kindOf(br.contender)])
			fmt.Fprintf(&body, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", float64(labelWidth)+w+4, by+barHeight-3, num(br.value, p.decimals))
		}
		bottom := top + len(p.bars)*barStep
		for i, ref := range p.refs {
			for _, br := range p.bars {
				if br.contender != ref {
					continue
				}
				rx := float64(labelWidth) + br.value*scale
				fmt.Fprintf(&body, "<line class=\"ref\" data-contender=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n",
					esc(ref), rx, top-4, rx, bottom, kindColours[kindOf(ref)])
				// Each reference is named under the bars, on a line of its own.
				ly := bottom + 11 + i*12
				fmt.Fprintf(&body, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
					rx, ly, kindColours[kindOf(ref)], esc(ref))
			}
		}
		body.WriteString("</g>\n")
		y = bottom + 12*len(p.refs)
	}
	y += 10
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
		chartWidth, y, chartWidth, y)
	fmt.Fprintf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", chartWidth, y)
	b.Write(body.Bytes())
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// wrap breaks lines longer than width at spaces.
func wrap(lines []string, width int) []string {
	var out []string
	for _, l := range lines {
		for len(l) > width {
			i := strings.LastIndex(l[:width], " ")
			if i <= 0 {
				break
			}
			out = append(out, l[:i])
			l = "    " + strings.TrimLeft(l[i:], " ")
		}
		out = append(out, l)
	}
	return out
}
