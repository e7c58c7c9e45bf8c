package predict

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"smart"
	"smart/internal/atomicfile"
)

// Colours of the charts: the fastest and most cost-efficient GPU, the user's, the others.
var (
	colourBest  = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	colourHave  = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}
	colourOther = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	// ocPalette colours the OCs of the best-OC chart (Tableau 10).
	ocPalette = []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
		{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff}}
)

// reportMark is in the head of every report WriteHTML writes (its title): IsReportFile tells
// a report by it from another file of the same name.
const reportMark = "<title>smart recommend"

// IsReportFile reports whether the file at path is a report WriteHTML wrote, by the mark in its
// first 4 kB.
func IsReportFile(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	return bytes.Contains(head[:n], []byte(reportMark)), nil
}

// WriteHTMLFile writes the page of WriteHTML to path atomically: a failure leaves the file
// as it was.
func WriteHTMLFile(path string, recs []*Recommendation, failed []error, generated time.Time) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, recs, failed, generated); err != nil {
		return err
	}
	return atomicfile.Write(path, b.Bytes())
}

// WriteHTML writes one self-contained HTML page for recommendations, one section per stencil:
// what stands behind the numbers, charts of the predicted time, the cost and the best OC per
// GPU (SVG drawn with gonum/plot, inline), the ranking table and the data sources. It loads
// nothing from elsewhere. failed are the stencils that got no recommendation, each error
// naming its file: the page lists them after the others.
func WriteHTML(w io.Writer, recs []*Recommendation, failed []error, generated time.Time) error {
	page := reportPage{Generated: generated.UTC().Format("2006-01-02 15:04 UTC")}
	for _, err := range failed {
		page.Failed = append(page.Failed, err.Error())
	}
	for _, r := range recs {
		sec, err := newSection(r)
		if err != nil {
			return err
		}
		page.Sections = append(page.Sections, sec)
	}
	var b bytes.Buffer
	if err := reportTemplate.Execute(&b, page); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	_, err := w.Write(b.Bytes())
	return err
}

type reportPage struct {
	Generated string
	Sections  []reportSection
	Failed    []string
}

type reportSection struct {
	R       *Recommendation
	Grid    string
	Basis   []basisLine // what stands behind the predicted times, strongest first
	Level   string      // of the intervals, e.g. "80%"; "" where no time has one
	Bounded []string    // the GPUs whose time a bound gave, each with the bound
	Charts  []chart
	Rows    []reportRow
	Sources []string
	Prices  []string
}

// basisLine is one kind of evidence behind the times and the GPUs it stands behind.
type basisLine struct {
	Basis Basis
	Text  string // the provenance's sentence
	Model string
	GPUs  []string
}

// basisOrder ranks the bases from the strongest evidence to the weakest.
var basisOrder = []Basis{BasisMeasured, BasisMixed, BasisTransfer, BasisSimulated, BasisExtrapolated}

type reportRow struct {
	GPU, Arch, OC, Time, Interval, Analytic, Total, Price, Cost, Class string
	TimeRank, CostRank                                                 string
	Setting                                                            []string // its parameters, each kept whole on a line
	Basis                                                              Basis
	Source                                                             string
}

func newSection(r *Recommendation) (reportSection, error) {
	s := reportSection{R: r, Grid: smart.FormatGrid(toGrid(r.Stencil.Grid), r.Stencil.Dims)}
	have := ""
	if r.Have != nil {
		have = r.Have.GPU
	}
	charts := []func(*Recommendation, string) (chart, bool, error){timeChart, costChart, ocChart}
	for _, draw := range charts {
		c, ok, err := draw(r, have)
		if err != nil {
			return s, err
		}
		if ok {
			s.Charts = append(s.Charts, c)
		}
	}
	for _, g := range r.GPUs {
		row := reportRow{GPU: g.GPU, Arch: g.Arch, Price: "-", Cost: "-", TimeRank: "-", CostRank: "-"}
		switch g.GPU {
		case r.Fastest, r.Cheapest:
			row.Class = "best"
		case have:
			row.Class = "have"
		}
		if g.Price != nil {
			row.Price = fmt.Sprintf("$%.3f", g.Price.USDPerHour)
			p := fmt.Sprintf("%s: $%.3f per GPU-hour, %s %s %s, read %s", g.GPU, g.Price.USDPerHour, g.Price.Provider, g.Price.Region, g.Price.Instance, g.Price.Read)
			s.Prices = append(s.Prices, p)
		}
		if g.Best == nil {
			row.Time, row.Source = "not predicted", g.Reason
			s.Rows = append(s.Rows, row)
			continue
		}
		row.OC, row.Time = g.Best.OC.String(), fmt.Sprintf("%.4g", g.Best.TimeMs)
		row.Setting = strings.Split(g.Best.Setting.String(), ",")
		if g.Best.Analytic != nil {
			row.Analytic = fmt.Sprintf("%.4g", g.Best.Analytic.TimeMs)
		}
		row.Interval = "-"
		if iv := g.Best.Interval; iv != nil {
			row.Interval = fmt.Sprintf("%.3g-%.3g", iv.LoMs, iv.HiMs)
			s.Level = fmt.Sprintf("%.0f%%", 100*iv.Level)
		}
		if bd := g.Best.Bounded; bd != nil {
			s.Bounded = append(s.Bounded, fmt.Sprintf("%s (%s)", g.GPU, bd.By))
		}
		if r.Workload.Hours > 0 {
			row.Total = fmt.Sprintf("%.3g steps", g.StepsDone)
		} else {
			row.Total = FormatSeconds(g.Seconds)
		}
		row.Cost = FormatUSD(g.CostUSD)
		row.Basis, row.Source = g.Best.Source.Basis, basisText(g.Best.Source)
		row.TimeRank = fmt.Sprint(g.TimeRank)
		if g.CostRank > 0 {
			row.CostRank = fmt.Sprint(g.CostRank)
		}
		s.Basis = addBasis(s.Basis, g.GPU, g.Best.Source)
		s.Rows = append(s.Rows, row)
	}
	sort.SliceStable(s.Basis, func(i, j int) bool {
		return slices.Index(basisOrder, s.Basis[i].Basis) < slices.Index(basisOrder, s.Basis[j].Basis)
	})
	for _, m := range r.Models {
		var parts []string
		for _, d := range m.Data {
			var src []string
			for _, k := range []smart.Source{smart.Measured, smart.Imported, smart.Simulated} {
				if n := d.Sources[string(k)]; n > 0 {
					src = append(src, fmt.Sprintf("%d %s", n, k))
				}
			}
			parts = append(parts, fmt.Sprintf("%s (%d rows; %s measurements; GPUs %s)", d.Path, d.Rows, strings.Join(src, ", "), strings.Join(d.GPUs, ", ")))
		}
		line := fmt.Sprintf("%s (%s, %s): trained on %s", m.Name, m.Kind, m.Task, strings.Join(parts, "; "))
		if cv := m.CV; cv != nil && cv.Accuracy > 0 {
			line += fmt.Sprintf("; %d-fold cross-validated accuracy %.1f%%", cv.Folds, 100*cv.Accuracy)
		}
		if cv := m.CV; cv != nil && cv.MdAPE > 0 {
			line += fmt.Sprintf("; %d-fold cross-validated time error: median %.0f%%, 90th percentile %.0f%%", cv.Folds, cv.MdAPE, cv.P90APE)
		}
		s.Sources = append(s.Sources, line)
	}
	return s, nil
}

// addBasis files gpu under the line of its provenance, adding the line at its first GPU.
func addBasis(lines []basisLine, gpu string, p Provenance) []basisLine {
	for i, l := range lines {
		if l.Basis == p.Basis && l.Text == basisText(p) && l.Model == p.Model {
			lines[i].GPUs = append(lines[i].GPUs, gpu)
			return lines
		}
	}
	return append(lines, basisLine{Basis: p.Basis, Text: basisText(p), Model: p.Model, GPUs: []string{gpu}})
}

// basisText is the provenance's sentence without the basis it may begin with, which the page
// shows as a badge before it.
func basisText(p Provenance) string {
	return strings.TrimPrefix(p.Text, string(p.Basis)+": ")
}

func toGrid(g []int) [3]int {
	var out [3]int
	copy(out[:], g)
	return out
}

// FormatSeconds writes a duration given in seconds in the unit that reads best.
func FormatSeconds(s float64) string {
	switch {
	case s >= 3600:
		return fmt.Sprintf("%.2f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.1f min", s/60)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.3g ms", s*1e3)
}

// chart is a drawn chart with its title and legend, which the page sets in HTML.
type chart struct {
	Title  string
	SVG    template.HTML
	Legend []legendKey
}

type legendKey struct {
	Name   string
	Colour template.CSS
}

// chartFont is the typeface the charts are laid out in. The page names it first in its font
// stack and the SVG names none, so the charts' text is shown in the page's font with the
// metrics it was laid out with (Liberation Sans is metric-compatible with Arial and Helvetica,
// the stack's next entries).
var chartFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// chartWidth is the page's widest column (70em of 16 px): the charts, scaled to the column's
// width, show their text at the page's size there.
const chartWidth = 840 * vg.Inch / 72

// bars is one horizontal bar per name; colour picks each bar's series.
type bars struct {
	title, xlabel string
	names         []string
	values        []float64
	series        []string // the series (legend entry) of each bar
	colours       map[string]color.RGBA
	order         []string // legend order
}

// chart draws the bars as an inline SVG element, scaled by the page to its column's width.
func (b bars) chart() (chart, error) {
	c := chart{Title: b.title}
	p := plot.New()
	p.X.Label.Text = b.xlabel
	p.X.Label.TextStyle.Font = font.From(chartFont, 12)
	p.X.Tick.Label.Font = font.From(chartFont, 11)
	p.Y.Tick.Label.Font = font.From(chartFont, 11)
	top := 0.0
	for _, v := range b.values {
		top = max(top, v)
	}
	var ticks []plot.Tick
	ticks, p.X.Max = axisTicks(top)
	p.X.Min, p.X.Tick.Marker = 0, plot.ConstantTicks(ticks)
	// The first name at the top: nominal Y counts from the bottom.
	n := len(b.names)
	rev := make([]string, n)
	for i, name := range b.names {
		rev[n-1-i] = name
	}
	for _, series := range b.order {
		vals := make(plotter.Values, n)
		any := false
		for i := range b.names {
			if b.series[i] == series {
				vals[n-1-i] = b.values[i]
				any = true
			}
		}
		if !any {
			continue
		}
		bc, err := plotter.NewBarChart(vals, vg.Points(12))
		if err != nil {
			return c, fmt.Errorf("chart %q: %w", b.title, err)
		}
		bc.Horizontal = true
		bc.LineStyle.Width = 0
		bc.Color = b.colours[series]
		p.Add(bc)
		cl := b.colours[series]
		c.Legend = append(c.Legend, legendKey{Name: series, Colour: template.CSS(fmt.Sprintf("#%02x%02x%02x", cl.R, cl.G, cl.B))})
	}
	p.NominalY(rev...)
	p.Y.Min, p.Y.Max = -0.75, float64(n)-0.25 // half a bar's gap inside the frame
	p.Add(plotter.NewGrid())
	canvas := vgsvg.New(chartWidth, vg.Length(n)*18+45)
	// The margin on the right holds the half of the last tick's label that overhangs the axis.
	p.Draw(draw.Crop(draw.New(canvas), 0, -vg.Points(16), 0, 0))
	var out bytes.Buffer
	if _, err := canvas.WriteTo(&out); err != nil {
		return c, err
	}
	svg := out.String()
	// Inline SVG takes no XML declaration; its size is the page's (CSS), and its text the
	// page's font.
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	svg = svgSize.ReplaceAllString(svg, `<svg class="chart"`)
	svg = strings.ReplaceAll(svg, "font-family:Liberation Sans;", "")
	c.SVG = template.HTML(svg)
	return c, nil
}

// svgSize is the root element's fixed size, which vgsvg writes before the viewBox.
var svgSize = regexp.MustCompile(`^<svg width="[^"]*" height="[^"]*"`)

// axisTicks labels an axis from 0 at a round step (1, 2, 2.5 or 5 times a power of ten) that
// gives about ten ticks, up to the first tick at least 3% beyond max, where the axis ends: the
// longest bar ends visibly inside the plot.
func axisTicks(max float64) ([]plot.Tick, float64) {
	if !(max > 0) || math.IsInf(max, 0) {
		max = 1
	}
	raw := max / 10
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, decimals := 10*mag, -math.Floor(math.Log10(mag))-1
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step, decimals = m*mag, -math.Floor(math.Log10(mag))
			if m == 2.5 {
				decimals++
			}
			break
		}
	}
	n := math.Ceil(max / step)
	for n*step < 1.03*max {
		n++
	}
	ticks := make([]plot.Tick, 0, int(n)+1)
	for i := 0.0; i <= n; i++ {
		ticks = append(ticks, plot.Tick{Value: i * step, Label: strconv.FormatFloat(i*step, 'f', int(math.Max(0, decimals)), 64)})
	}
	return ticks, n * step
}

func timeChart(r *Recommendation, have string) (chart, bool, error) {
	b := bars{title: "Predicted time per step", xlabel: "ms per step (lower is better)",
		colours: map[string]color.RGBA{"fastest": colourBest, "your GPU": colourHave, "others": colourOther},
		order:   []string{"fastest", "your GPU", "others"}}
	for _, g := range r.GPUs {
		if g.Best == nil {
			continue
		}
		b.names, b.values = append(b.names, g.GPU), append(b.values, g.Best.TimeMs)
		b.series = append(b.series, series(g.GPU, r.Fastest, have, "fastest"))
	}
	c, err := b.chart()
	return c, true, err
}

// costChart draws the cost per GPU; there is none when no GPU has a price.
func costChart(r *Recommendation, have string) (chart, bool, error) {
	if r.Cheapest == "" {
		return chart{}, false, nil
	}
	b := bars{title: "Predicted cost at on-demand prices", xlabel: "US$ for " + r.Workload.String() + " (lower is better)",
		colours: map[string]color.RGBA{"most cost-efficient": colourBest, "your GPU": colourHave, "others": colourOther},
		order:   []string{"most cost-efficient", "your GPU", "others"}}
	if r.Workload.Hours > 0 {
		b.xlabel = "US$ per million steps (lower is better)"
	}
	var gs []Ranked
	for _, g := range r.GPUs {
		if g.Best != nil && g.CostUSD != nil {
			gs = append(gs, g)
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].CostRank < gs[j].CostRank })
	for _, g := range gs {
		v := *g.CostUSD
		if r.Workload.Hours > 0 {
			v = 1e6 / g.StepsPerUSD
		}
		b.names, b.values = append(b.names, g.GPU), append(b.values, v)
		b.series = append(b.series, series(g.GPU, r.Cheapest, have, "most cost-efficient"))
	}
	c, err := b.chart()
	return c, true, err
}

func series(gpu, best, have, bestName string) string {
	switch gpu {
	case best:
		return bestName
	case have:
		return "your GPU"
	}
	return "others"
}

// ocChart draws each GPU's predicted time in the colour of its best OC, which its label names.
func ocChart(r *Recommendation, _ string) (chart, bool, error) {
	b := bars{title: "Best OC per GPU (bar: its predicted time)", xlabel: "ms per step", colours: map[string]color.RGBA{}}
	for _, g := range r.GPUs {
		if g.Best == nil {
			continue
		}
		oc := g.Best.OC.String()
		if _, ok := b.colours[oc]; !ok {
			b.colours[oc] = ocPalette[len(b.order)%len(ocPalette)]
			b.order = append(b.order, oc)
		}
		b.names, b.values, b.series = append(b.names, g.GPU+": "+oc), append(b.values, g.Best.TimeMs), append(b.series, oc)
	}
	c, err := b.chart()
	return c, true, err
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>smart recommend: GPUs for {{range $i, $s := .Sections}}{{if $i}}, {{end}}{{$s.R.Stencil.Name}}{{end}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 2em auto; padding: 0 1em; max-width: 70em; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; } h3 { font-size: 1.05em; margin: 1.5em 0 0.3em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; width: 100%; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.best { background: #e3f4e3; } tr.have { background: #fff0e0; }
figure { margin: 0 0 1.5em; } svg.chart { display: block; width: 100%; height: auto; }
.legend { margin: 0.2em 0; font-size: 0.9em; } .legend span { margin-right: 1.2em; white-space: nowrap; }
.key { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.35em; vertical-align: -0.1em; }
.advice { font-size: 1.1em; background: #f4f4f4; padding: 0.6em 1em; border-left: 4px solid #2ca02c; }
.behind { background: #f8f8fb; border: 1px solid #dde; padding: 0.4em 1em; } .behind ul { margin: 0.3em 0; padding-left: 1.2em; }
.basis { display: inline-block; padding: 0 0.45em; border-radius: 0.3em; font-size: 0.85em; font-weight: bold; color: #fff; background: #777; }
.basis.measured { background: #2a7a2a; } .basis.mixed { background: #5a8a2a; } .basis.transfer { background: #2a5a9a; }
.basis.simulated { background: #8a6a1a; } .basis.extrapolated { background: #a33; }
.warn { color: #a33; } code { font-size: 0.9em; } td code .p { white-space: nowrap; }
</style>
</head>
<body>
<h1>Which GPU for this stencil?</h1>
<p>Generated by <code>smart recommend</code> on {{.Generated}}. Times are <strong>predicted</strong> per time step, for each
GPU under the optimization combination and setting the models find best there. Costs are on-demand rental prices times
predicted time.</p>
{{range .Sections}}{{$r := .R}}
<h2>{{$r.Stencil.Name}}: {{$r.Stencil.Dims}}-D, order {{$r.Stencil.Order}}, {{$r.Stencil.Points}} points, grid {{.Grid}}, {{$r.Stencil.Dtype}}</h2>
<p>Fastest: <strong>{{$r.Fastest}}</strong>.{{if $r.Cheapest}} Most cost-efficient: <strong>{{$r.Cheapest}}</strong>.{{end}}
Workload priced: {{$r.Workload}}. Stencil id <code>{{$r.Stencil.ID}}</code>{{if $r.File}}, from <code>{{$r.File}}</code>{{end}}.</p>
{{with $r.Have}}<p class="advice">{{.Advice}}.</p>{{end}}
{{range $r.Warnings}}<p class="warn">Warning: {{.}}.</p>{{end}}
<div class="behind"><strong>What stands behind these times</strong>
<ul>
{{range .Basis}}<li><span class="basis {{.Basis}}">{{.Basis}}</span> {{range $i, $g := .GPUs}}{{if $i}}, {{end}}{{$g}}{{end}}: {{.Text}}{{with .Model}} ({{.}}){{end}}.</li>
{{end}}</ul>
Each time is the model's prediction for the best setting it found.{{if .Level}} Its {{.Level}} interval is where the measured time lies
{{.Level}} of the time, by that model's errors on measured stencils it had not seen.{{end}}{{with $r.Overlapping}} The fastest GPU's interval overlaps
those of {{range $i, $g := .}}{{if $i}}, {{end}}{{$g}}{{end}}: at that level the models cannot say which is faster; measure before you rent.{{end}}{{with .Bounded}}
A bound answered instead of the model for {{range $i, $g := .}}{{if $i}}, {{end}}{{$g}}{{end}}: no time is below reading and writing the grid at the
GPU's copy bandwidth, and a model asked outside its training range is kept within the calibrated analytic model's interval.{{end}}
The table's "analytic model" column is the calibrated analytic model's time for the same setting, a second opinion: where the two differ
widely, trust neither blindly.</div>
{{range .Charts}}<figure>
<h3>{{.Title}}</h3>
<div class="legend">{{range .Legend}}<span><span class="key" style="background: {{.Colour}}"></span>{{.Name}}</span>{{end}}</div>
{{.SVG}}
</figure>
{{end}}
<table>
<tr><th>time rank</th><th>GPU</th><th>arch</th><th>ms/step</th><th>{{if .Level}}{{.Level}} interval{{else}}interval{{end}}</th><th>analytic model ms/step</th><th>{{if gt $r.Workload.Hours 0.0}}steps in {{$r.Workload}}{{else}}time for {{$r.Workload}}{{end}}</th><th>$/GPU-hour</th><th>cost</th><th>cost rank</th><th>best OC</th><th>setting</th><th>what stands behind it</th></tr>
{{range .Rows}}<tr class="{{.Class}}"><td class="n">{{.TimeRank}}</td><td>{{.GPU}}</td><td>{{.Arch}}</td><td class="n">{{.Time}}</td><td class="n">{{.Interval}}</td><td class="n">{{.Analytic}}</td><td class="n">{{.Total}}</td><td class="n">{{.Price}}</td><td class="n">{{.Cost}}</td><td class="n">{{.CostRank}}</td><td>{{.OC}}</td><td><code>{{range $i, $p := .Setting}}{{if $i}},<wbr>{{end}}<span class="p">{{$p}}</span>{{end}}</code></td><td>{{with .Basis}}<span class="basis {{.}}">{{.}}</span> {{end}}{{.Source}}</td></tr>
{{end}}</table>
{{with $r.Measured}}<h3>Measured</h3>
<p>smart ran this very stencil on these GPUs. The fastest variant run in full on each is a time that was had, where those above are predicted:</p>
<ul>
{{range .}}<li><span class="basis measured">measured</span> {{.GPU}}: {{printf "%.4g" .TimeMs}} ms/step, {{.OC}} <code>{{.Setting}}</code>, the fastest of {{.Variants}} variants{{with .Device}} ({{.}}){{end}}</li>
{{end}}</ul>{{end}}
<h3>Data sources</h3>
<ul>
{{range .Sources}}<li>{{.}}</li>
{{end}}{{range .Prices}}<li>Price {{.}}</li>
{{end}}<li>GPU facts: the catalogue embedded in smart (data/gpus.json), each field citing its datasheet; <code>smart gpus --json</code> lists them.</li>
</ul>
{{end}}{{with .Failed}}
<h2>Not answered</h2>
<ul>
{{range .}}<li class="warn">{{.}}</li>
{{end}}</ul>{{end}}
</body>
</html>
`))
