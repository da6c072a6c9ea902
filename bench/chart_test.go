package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var draw = flag.Bool("draw", false, "write docs/bench-<part>.svg from the figures of the run docs/benchmarks.md quotes")

// figures is a summary of a contender with the figures the charts show; NaN for "-".
func figures(name string, syncS, rssMiB, allocMiB, readMiB, cpuPer1k, lagP99ms float64) summary {
	s := find(nil, name)
	s.runs, s.syncSeconds, s.hwmSyncMiB, s.allocMiB, s.readMiB, s.cpuPer1k, s.lagP99ms = 3, syncS, rssMiB, allocMiB, readMiB, cpuPer1k, lagP99ms
	return s
}

// quotedRun is the run of make bench (defaults) that docs/benchmarks.md
// quotes, medians as its tables print them.
func quotedRun() map[string]*chart {
	nan := math.NaN()
	run := []string{
		"figures of the make bench run (defaults) quoted in the README at commit 7caa8e8, now in docs/benchmarks.md; make bench redraws this chart from its own run",
		`setup: 20000 configmaps of 2048 B payload in namespace "bench"; 3 rounds; steady state 200 updates/s (at most 8 in flight) for 20s over 500 objects; GOMAXPROCS=2 GOGC=default; 2 CPUs; go1.26.8`,
		"server: kube-apiserver v1.37.2, WatchListCompression on (WatchList responses gzip-compressed)",
	}
	return map[string]*chart{
		partContenders: contendersChart(run, []summary{
			figures(floorRead, 0.692, 28.5, 5, nan, nan, nan),
			figures(floorDecode, 0.731, 33.2, 74, nan, 0.175, 7.5),
			figures(keepAll, 0.785, 99.8, 74, nan, nan, nan),
			figures(clientGoWatch, 1.027, 135.9, 193, nan, 0.243, 6.0),
			figures(clientGoList, 1.138, 213.8, 258, nan, nan, nan),
			figures(ours, 0.821, 101.8, 75, nan, 0.205, 6.0),
			figures(oursStrip, 0.953, 98.7, 76, nan, nan, nan),
			figures(oursSlow, 0.919, 101.8, 76, nan, 0.279, 7.5),
			figures(clientGoSlow, 0.945, 132.5, 193, nan, 0.333, 7.3),
		}),
		partServerCost: serverChart(run, []serverSummary{
			{contender: ours, runs: 3, slowest: 6.553, idleMiB: 447.9, peakOverMiB: 56.6, cpu: 5.88, allocatedMiB: 377},
			{contender: oursWarm, runs: 3, slowest: 1.431, idleMiB: 505.8, peakOverMiB: 119.1, cpu: 1.01, allocatedMiB: 351},
			{contender: clientGoWatch, runs: 3, slowest: 8.341, idleMiB: 453.6, peakOverMiB: 63.8, cpu: 6.47, allocatedMiB: 366},
			{contender: clientGoList, runs: 3, slowest: 6.541, idleMiB: 462.5, peakOverMiB: 66.4, cpu: 4.49, allocatedMiB: 134},
		}),
		partCRD: crdChart(run, []summary{
			figures(ours, 2.097, 107.5, 97, nan, nan, nan),
			figures(clientGoWatch, 3.223, 136.0, 195, nan, nan, nan),
			figures(clientGoDynamic, 3.890, 206.8, 260, nan, nan, nan),
		}),
		partWarm: warmChart(run, []summary{
			figures(oursWarm, 0.164, 107.5, 85, 1.99, nan, nan),
			figures(ours, 0.765, 101.7, 75, 32.25, nan, nan),
			figures(clientGoWatch, 0.880, 127.3, 194, 32.30, nan, nan),
		}),
	}
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
	c := contendersChart([]string{`setup: <"quoted"> & escaped`}, []summary{
		figures(floorDecode, 0.7, 33, 74, nan, 0.175, 7.5),
		figures(keepAll, 0.8, 99, 74, nan, nan, nan),
		figures(clientGoWatch, 1.0, 136, 193, nan, 0.243, 6),
		figures(ours, 0.8, 101, 75, nan, 0.205, 6),
		find(nil, oursStrip), // did not run: no bar
	})
	p := parseSVG(t, c.svg())
	if len(p.panels) != len(c.panels) {
		t.Fatalf("panels %q, want %d", p.panels, len(c.panels))
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
	if !bytes.Contains(c.svg(), []byte("&lt;&#34;quoted&#34;&gt; &amp; escaped")) {
		t.Error("the run's line is not escaped")
	}
}

// The charts of the quoted run are well-formed, one bar per contender;
// with -draw they are written into docs/.
func TestChartsOfTheQuotedRun(t *testing.T) {
	for part, c := range quotedRun() {
		svg := c.svg()
		p := parseSVG(t, svg)
		first := c.panels[0]
		if got := p.bars[first.metric]; len(got) != len(first.bars) || len(got) < 3 {
			t.Errorf("%s: bars %q", part, got)
		}
		if *draw {
			if err := os.WriteFile(filepath.Join("..", "docs", "bench-"+part+".svg"), svg, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// charts draws a chart for each part that ran, from its results.
func TestChartsOfAnOutcome(t *testing.T) {
	r := func(name string, s float64) result {
		return result{contender: name, sync: syncReport{Objects: 10, SyncSeconds: s, HWMBytes: 50 * mib, TotalAllocBytes: 20 * mib}}
	}
	out := outcome{main: []result{r(floorDecode, 1), r(ours, 1.1), r(clientGoWatch, 1.3)}, names: []string{floorDecode, ours, clientGoWatch},
		warm: []result{r(oursWarm, 0.2), r(ours, 1)}}
	cs := charts([]string{"run"}, out)
	if len(cs) != 2 || cs[partContenders] == nil || cs[partWarm] == nil {
		t.Fatalf("charts of parts %v, want contenders and warm", cs)
	}
	if got := parseSVG(t, cs[partWarm].svg()).bars["time to synced, s"]; !slices.Equal(got, []string{oursWarm, ours}) {
		t.Errorf("warm bars %q", got)
	}
	dir := t.TempDir()
	if err := writeCharts(dir, []string{"run"}, out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"bench-contenders.svg", "bench-warm.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
