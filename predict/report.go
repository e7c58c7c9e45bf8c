package predict

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"smart"
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

// WriteHTML writes one self-contained HTML page for recommendations, one section per stencil:
// charts of the predicted time, the cost and the best OC per GPU (SVG drawn with gonum/plot,
// inline), the ranking table, and what data stands behind the numbers. It loads nothing from
// elsewhere.
func WriteHTML(w io.Writer, recs []*Recommendation, generated time.Time) error {
	page := reportPage{Generated: generated.UTC().Format("2006-01-02 15:04 UTC")}
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
}

type reportSection struct {
	R                     *Recommendation
	Grid                  string
	TimeSVG, CostSVG, OCS template.HTML
	Rows                  []reportRow
	Sources               []string
	Prices                []string
}

type reportRow struct {
	GPU, Arch, OC, Setting, Time, Total, Price, Cost, Source, Class string
	TimeRank, CostRank                                              string
}

func newSection(r *Recommendation) (reportSection, error) {
	s := reportSection{R: r, Grid: gridText(toGrid(r.Stencil.Grid), r.Stencil.Dims)}
	have := ""
	if r.Have != nil {
		have = r.Have.GPU
	}
	var err error
	if s.TimeSVG, err = timeChart(r, have); err != nil {
		return s, err
	}
	if r.Cheapest != "" {
		if s.CostSVG, err = costChart(r, have); err != nil {
			return s, err
		}
	}
	if s.OCS, err = ocChart(r); err != nil {
		return s, err
	}
	seenSrc := map[string]bool{}
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
		row.OC, row.Setting, row.Time = g.Best.OC.String(), g.Best.Setting.String(), fmt.Sprintf("%.4g", g.Best.TimeMs)
		if r.Workload.Hours > 0 {
			row.Total = fmt.Sprintf("%.3g steps", g.StepsDone)
		} else {
			row.Total = FormatSeconds(g.Seconds)
		}
		row.Cost = FormatUSD(g.CostUSD)
		row.Source = g.Best.Source.Text
		row.TimeRank = fmt.Sprint(g.TimeRank)
		if g.CostRank > 0 {
			row.CostRank = fmt.Sprint(g.CostRank)
		}
		seenSrc[g.Best.Source.Model+": "+g.Best.Source.Text] = true
		s.Rows = append(s.Rows, row)
	}
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
		if m.CV != nil && m.CV.Accuracy > 0 {
			line += fmt.Sprintf("; %d-fold cross-validated accuracy %.1f%%", m.CV.Folds, 100*m.CV.Accuracy)
		}
		s.Sources = append(s.Sources, line)
	}
	var perGPU []string
	for k := range seenSrc {
		perGPU = append(perGPU, "times of "+k)
	}
	sort.Strings(perGPU)
	s.Sources = append(s.Sources, perGPU...)
	return s, nil
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

// bars is one horizontal bar per name; colour picks each bar's series.
type bars struct {
	title, xlabel string
	names         []string
	values        []float64
	series        []string // the series (legend entry) of each bar
	colours       map[string]color.Color
	order         []string // legend order
}

// svg draws the bars as an inline SVG element.
func (b bars) svg() (template.HTML, error) {
	p := plot.New()
	p.Title.Text = b.title
	p.X.Label.Text = b.xlabel
	p.X.Min = 0
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
		bc, err := plotter.NewBarChart(vals, vg.Points(11))
		if err != nil {
			return "", fmt.Errorf("chart %q: %w", b.title, err)
		}
		bc.Horizontal = true
		bc.LineStyle.Width = 0
		bc.Color = b.colours[series]
		p.Add(bc)
		p.Legend.Add(series, bc)
	}
	p.NominalY(rev...)
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	height := vg.Length(n)*18 + 90
	c := vgsvg.New(6.5*vg.Inch, height)
	p.Draw(draw.New(c))
	var out bytes.Buffer
	if _, err := c.WriteTo(&out); err != nil {
		return "", err
	}
	svg := out.String()
	// Inline SVG takes no XML declaration.
	if i := strings.Index(svg, "<svg"); i >= 0 {
		svg = svg[i:]
	}
	return template.HTML(svg), nil
}

func timeChart(r *Recommendation, have string) (template.HTML, error) {
	b := bars{title: "Predicted time per step", xlabel: "ms per step (lower is better)",
		colours: map[string]color.Color{"fastest": colourBest, "your GPU": colourHave, "others": colourOther},
		order:   []string{"fastest", "your GPU", "others"}}
	for _, g := range r.GPUs {
		if g.Best == nil {
			continue
		}
		b.names, b.values = append(b.names, g.GPU), append(b.values, g.Best.TimeMs)
		b.series = append(b.series, series(g.GPU, r.Fastest, have, "fastest"))
	}
	return b.svg()
}

func costChart(r *Recommendation, have string) (template.HTML, error) {
	b := bars{title: "Predicted cost at on-demand prices", xlabel: "US$ for " + r.Workload.String() + " (lower is better)",
		colours: map[string]color.Color{"most cost-efficient": colourBest, "your GPU": colourHave, "others": colourOther},
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
	return b.svg()
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

func ocChart(r *Recommendation) (template.HTML, error) {
	b := bars{title: "Best OC per GPU (bar: its predicted time)", xlabel: "ms per step", colours: map[string]color.Color{}}
	for _, g := range r.GPUs {
		if g.Best == nil {
			continue
		}
		oc := g.Best.OC.String()
		if _, ok := b.colours[oc]; !ok {
			b.colours[oc] = ocPalette[len(b.order)%len(ocPalette)]
			b.order = append(b.order, oc)
		}
		b.names, b.values, b.series = append(b.names, g.GPU), append(b.values, g.Best.TimeMs), append(b.series, oc)
	}
	return b.svg()
}

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>smart recommend: GPUs for {{range $i, $s := .Sections}}{{if $i}}, {{end}}{{$s.R.Stencil.Name}}{{end}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.best { background: #e3f4e3; } tr.have { background: #fff0e0; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; } .charts svg { max-width: 100%; height: auto; }
.advice { font-size: 1.1em; background: #f4f4f4; padding: 0.6em 1em; border-left: 4px solid #2ca02c; }
.warn { color: #a33; } code { font-size: 0.9em; } td code { word-break: break-all; }
</style>
</head>
<body>
<h1>Which GPU for this stencil?</h1>
<p>Generated by <code>smart recommend</code> on {{.Generated}}. Times are <strong>predicted</strong> per time step, for each
GPU under the optimization combination and setting the models find best there; what stands behind them is said per GPU and
under "Data sources". Costs are on-demand rental prices times predicted time.</p>
{{range .Sections}}{{$r := .R}}
<h2>{{$r.Stencil.Name}}: {{$r.Stencil.Dims}}-D, order {{$r.Stencil.Order}}, {{$r.Stencil.Points}} points, grid {{.Grid}}, {{$r.Stencil.Dtype}}</h2>
<p>Fastest: <strong>{{$r.Fastest}}</strong>.{{if $r.Cheapest}} Most cost-efficient: <strong>{{$r.Cheapest}}</strong>.{{end}}
Workload priced: {{$r.Workload}}. Stencil id <code>{{$r.Stencil.ID}}</code>{{if $r.File}}, from <code>{{$r.File}}</code>{{end}}.</p>
{{with $r.Have}}<p class="advice">{{.Advice}}.</p>{{end}}
{{range $r.Warnings}}<p class="warn">Warning: {{.}}.</p>{{end}}
<div class="charts">
<figure>{{.TimeSVG}}</figure>
{{if .CostSVG}}<figure>{{.CostSVG}}</figure>{{end}}
<figure>{{.OCS}}</figure>
</div>
<table>
<tr><th>time rank</th><th>GPU</th><th>arch</th><th>ms/step</th><th>{{if gt $r.Workload.Hours 0.0}}steps in {{$r.Workload}}{{else}}time for {{$r.Workload}}{{end}}</th><th>$/GPU-hour</th><th>cost</th><th>cost rank</th><th>best OC</th><th>setting</th><th>what stands behind it</th></tr>
{{range .Rows}}<tr class="{{.Class}}"><td class="n">{{.TimeRank}}</td><td>{{.GPU}}</td><td>{{.Arch}}</td><td class="n">{{.Time}}</td><td class="n">{{.Total}}</td><td class="n">{{.Price}}</td><td class="n">{{.Cost}}</td><td class="n">{{.CostRank}}</td><td>{{.OC}}</td><td><code>{{.Setting}}</code></td><td>{{.Source}}</td></tr>
{{end}}</table>
<h3>Data sources</h3>
<ul>
{{range .Sources}}<li>{{.}}</li>
{{end}}{{range .Prices}}<li>Price {{.}}</li>
{{end}}<li>GPU facts: the catalogue embedded in smart (data/gpus.json), each field citing its datasheet; <code>smart gpus --json</code> lists them.</li>
</ul>
{{end}}
</body>
</html>
`))
