package driver

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// The charts: one SVG per part of the benchmark that ran, drawn from the
// Run's medians, so that a reader sees where ours stands between the
// floors and client-go. Each figure of a part is a panel of horizontal
// Bars, one per contender, coloured by what the contender is (a floor,
// client-go, ours); dashed lines across the panel mark the references its
// ratios are taken against.

// Chart is one part's figures.
type Chart struct {
	Title  string
	Run    []string // the run the figures come from, one line each
	Panels []Panel
}

// Panel is one figure of every contender that has it.
type Panel struct {
	Metric   string // what is measured, with its unit; lower is better
	Decimals int
	Bars     []Bar
	Refs     []string // contenders whose values are marked across the panel
}

type Bar struct {
	Contender string
	Value     float64
}

// kindOf tells what a contender is, for its colour: "floor", "client-go" or
// "ours", by its name (after a "<set>: " that a panel may put in front):
// floor-* and keep-all are floors, client-go* and controller-runtime's
// caches (cr-cache*, cr-metadata*: client-go's informers) are client-go,
// any other name ours.
func kindOf(contender string) string {
	if _, name, ok := strings.Cut(contender, ": "); ok {
		contender = name
	}
	switch {
	case strings.HasPrefix(contender, "floor-") || contender == "keep-all":
		return "floor"
	case strings.HasPrefix(contender, "client-go") || strings.HasPrefix(contender, "cr-cache") || strings.HasPrefix(contender, "cr-metadata"):
		return "client-go"
	}
	return "ours"
}

var kindColours = map[string]string{"floor": "#9e9e9e", "client-go": "#4c78a8", "ours": "#e45756"}

// Row is a summary of one row of a part: a contender, or a shard count.
type Row interface {
	// Label names the row's bars and tells whether the row ran.
	Label() (name string, ran bool)
}

func (s Summary) Label() (string, bool) { return s.Contender, s.Runs > 0 }

// PanelOf makes a panel of f over the rows of ss that ran.
func PanelOf[S Row](metric string, decimals int, ss []S, f func(S) float64, refs ...string) Panel {
	p := Panel{Metric: metric, Decimals: decimals, Refs: refs}
	for _, s := range ss {
		if n, ran := s.Label(); ran {
			if v := f(s); !math.IsNaN(v) {
				p.Bars = append(p.Bars, Bar{n, v})
			}
		}
	}
	return p
}

// Mapped returns f of each key, in order.
func Mapped[K, S any](keys []K, f func(K) S) []S {
	out := make([]S, 0, len(keys))
	for _, k := range keys {
		out = append(out, f(k))
	}
	return out
}

func SyncTime(s Summary) float64  { return s.SyncSeconds }
func SyncRSS(s Summary) float64   { return s.HWMSyncMiB }
func Allocated(s Summary) float64 { return s.AllocMiB }

// Layout, in pixels.
const (
	chartWidth = 820
	labelWidth = 190 // the contenders' names
	barsWidth  = 520 // the longest bar; its value is written after it
	barHeight  = 16
	barStep    = 21
	lineHeight = 16
)

// SVG renders the chart.
func (c *Chart) SVG() []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s)) // writing to a bytes.Buffer does not fail
		return e.String()
	}
	y := 28
	var body bytes.Buffer
	fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-size=\"16\" font-weight=\"bold\">%s</text>\n", y, esc(c.Title))
	for _, l := range wrap(c.Run, 130) {
		y += lineHeight
		fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-size=\"11\" fill=\"#555\">%s</text>\n", y, esc(l))
	}
	y += 22
	x := 10
	kinds := map[string]bool{}
	for _, p := range c.Panels {
		for _, br := range p.Bars {
			kinds[kindOf(br.Contender)] = true
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
	for _, p := range c.Panels {
		y += 30
		fmt.Fprintf(&body, "<g class=\"panel\" data-metric=\"%s\">\n", esc(p.Metric))
		fmt.Fprintf(&body, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">%s</text>\n", y, esc(p.Metric))
		top := y + 8
		scale := 0.0
		for _, br := range p.Bars {
			scale = max(scale, br.Value)
		}
		if scale > 0 {
			scale = barsWidth / scale
		}
		for i, br := range p.Bars {
			by := top + i*barStep
			w := br.Value * scale
			fmt.Fprintf(&body, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", labelWidth-6, by+barHeight-3, esc(br.Contender))
			fmt.Fprintf(&body, "<rect class=\"bar %s\" data-contender=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n",
				kindOf(br.Contender), esc(br.Contender), labelWidth, by, w, barHeight, kindColours[kindOf(br.Contender)])
			fmt.Fprintf(&body, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", float64(labelWidth)+w+4, by+barHeight-3, Num(br.Value, p.Decimals))
		}
		bottom := top + len(p.Bars)*barStep
		for i, ref := range p.Refs {
			for _, br := range p.Bars {
				if br.Contender != ref {
					continue
				}
				rx := float64(labelWidth) + br.Value*scale
				fmt.Fprintf(&body, "<line class=\"ref\" data-contender=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"4 3\"/>\n",
					esc(ref), rx, top-4, rx, bottom, kindColours[kindOf(ref)])
				// Each reference is named under the bars, on a line of its own.
				ly := bottom + 11 + i*12
				fmt.Fprintf(&body, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n",
					rx, ly, kindColours[kindOf(ref)], esc(ref))
			}
		}
		body.WriteString("</g>\n")
		y = bottom + 12*len(p.Refs)
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
