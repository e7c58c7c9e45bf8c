package predict

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/dataset"
	"smart/internal/english"
	"smart/models"
)

// WriteText writes the prediction as smart predict prints it for one stencil: the OC classes,
// the OCs searched, the choice with what stands behind it, and the table of GPUs (allGPUs says
// whether the table holds every catalogued GPU, Predictor.AllGPUs).
func (pr *Prediction) WriteText(w io.Writer, allGPUs bool) error {
	bw := bufio.NewWriter(w)
	s := pr.Stencil
	fmt.Fprintf(bw, "%s: %d-D, order %d, %s, grid %s, %s, %s (id %s)\n", s.Name, s.Dims, s.Order, english.Plural(s.Points, "point"), smart.FormatGrid(toGrid(s.Grid), len(s.Grid)), s.Dtype, english.Plural(s.Steps, "step"), s.ID)
	fmt.Fprintf(bw, "on %s\n\n", pr.GPU)
	if len(pr.Classes) == 0 {
		fmt.Fprintf(bw, "OC classes: none predicted (%s)\n", pr.ClassSource.Text)
		fmt.Fprintf(bw, "\nEvery OC (%d) screened on %s, the fastest %d searched in depth (%s)\n", pr.Screened, pr.GPU, len(pr.Candidates), pr.Best.Source.line())
	} else {
		fmt.Fprintf(bw, "OC classes, most probable first (%s)\n", pr.ClassSource.line())
		fmt.Fprintf(bw, "  %-6s %-16s %s\n", "p", "class", "OCs in the class")
		for _, c := range pr.Classes {
			fmt.Fprintf(bw, "  %-6.3f %-16s %s\n", c.Probability, c.OC, ocList(c.Members))
		}
		fmt.Fprintf(bw, "\n%s (%s)\n", pr.screenedText(), pr.Best.Source.line())
	}
	fmt.Fprintf(bw, "  %-16s %6s %10s %15s %9s %7s  %s\n", "OC", "class p", "ms/step", intervalLevel(pr.Best), "analytic", "scored", "best setting found")
	for _, c := range pr.Candidates {
		p := "-"
		if len(pr.Classes) > 0 {
			p = strconv.FormatFloat(c.Probability, 'f', 3, 64)
		}
		fmt.Fprintf(bw, "  %-16s %6s %10.4g %15s %9s %7d  %s\n", c.OC, p, c.TimeMs, intervalText(&c), analyticMs(c), c.Evaluated, c.Setting)
	}
	if w := pr.AnalyticWeight; w > 0 && pr.Best.Source.Basis != BasisAnalytic {
		fmt.Fprintf(bw, "  (ranked by ms/step^%.3g x analytic^%.3g: a candidate the analytic model holds far slower goes down)\n", 1-w, w)
	}
	left := 0
	for _, c := range pr.Candidates {
		left += c.LeftOut
	}
	if left > 0 {
		fmt.Fprintf(bw, "  (of the settings scored, %d were left out as predicted to keep over %d bytes of local memory a thread)\n", left, LocalLimit)
	}
	pr.writeChoice(bw)
	pr.writeGPUs(bw, allGPUs)
	return bw.Flush()
}

// screenedText says which OCs were screened and searched, and on which GPU: a time scaled from
// another GPU was searched there, among the classes most probable there (Predictor.Transfer).
func (pr *Prediction) screenedText() string {
	if sc := pr.Best.Scaled; sc != nil {
		return fmt.Sprintf("%d OCs of the classes most probable on the %s screened by its model, the fastest of each class searched in depth there, and the best settings found scaled to %s", pr.Screened, sc.GPU, pr.GPU)
	}
	return fmt.Sprintf("%d OCs of the most probable classes screened on %s; the fastest of each class searched in depth", pr.Screened, pr.GPU)
}

// writeChoice is the best choice with its interval, what answered it and how to use it.
func (pr *Prediction) writeChoice(w io.Writer) {
	s, b := pr.Stencil, pr.Best
	fmt.Fprintf(w, "=> use %s: %.4g ms per step, %.4g s for the stencil's %s\n", b.OC, b.TimeMs, b.TimeMs*float64(s.Steps)/1e3, english.Plural(s.Steps, "step"))
	if iv := b.Interval; iv != nil {
		fmt.Fprintf(w, "   %.0f%% interval %.4g-%.4g ms per step, from the %s\n", 100*iv.Level, iv.LoMs, iv.HiMs, iv.From)
	} else if b.Source.Basis == BasisTransfer {
		fmt.Fprintln(w, "   no interval: the errors of this model's times moved to another GPU were never measured")
	} else {
		fmt.Fprintln(w, "   no interval: the model that answered has no measured errors on stencils it had not seen (smart train --cv records them)")
	}
	switch bd := b.Bounded; {
	case bd == nil:
	case bd.By == BoundCalibrated:
		fmt.Fprintf(w, "   the time is the nearer edge of the calibrated model's interval, not the runtime model's %.4g ms: %s\n", bd.LearnedMs, bd.Why)
	default:
		fmt.Fprintf(w, "   answered by the %s, not the runtime model (%.4g ms): %s\n", bd.By, bd.LearnedMs, bd.Why)
	}
	if a := b.Analytic; a != nil {
		fmt.Fprintf(w, "   the calibrated analytic model gives %.4g ms per step for this setting (%s-bound; smart estimate shows why)\n", a.TimeMs, a.Bound)
	}
	if sc := b.Scaled; sc != nil {
		model := "the literature-constant analytic model's"
		if sc.Calibrated {
			model = "the calibrated analytic model's"
		}
		fmt.Fprintf(w, "   %.4g ms per step predicted on the %s, whose measurements trained the model, x %.3g: %s\n   time of this setting on %s over that on the %s (--transfer=false: the simulated default's choice instead)\n", sc.TimeMs, sc.GPU, sc.Ratio, model, pr.GPU, sc.GPU)
	}
	if m := pr.measuredOn(pr.GPU); m != nil {
		fmt.Fprintf(w, "   measured on the %s (smart's own runs, %s): the fastest of the %d variants run in full is %s at %.4g ms per step,\n   %.2fx the time predicted above (%s)\n",
			pr.GPU, dates(m), m.Variants, m.OC, m.TimeMs, m.TimeMs/b.TimeMs, m.Setting)
	}
	if len(pr.Classes) > 0 && !slices.Contains(pr.Classes[0].Members, b.OC) {
		top := pr.Classes[0]
		fmt.Fprintf(w, "   (the classifier ranks class %s first; the runtime model finds %s faster)\n", top.OC, b.OC)
	}
	fmt.Fprintf(w, "   %s -o %s.cu\n", b.Codegen, FileName(s.Name))
	also := ""
	if pr.measuredOn(pr.GPU) != nil {
		also = " and the fastest kernel measured"
	}
	fmt.Fprintf(w, "   on the GPU, time the %d candidates%s before you choose (models misjudge real kernels):\n   %s\n\n", len(pr.Candidates), also, pr.Measure)
}

// measuredText lists the fastest measured variants of a stencil: "GPU ms/step (OC, fastest of N); ...".
func measuredText(ms []dataset.Fastest) string {
	var parts []string
	for _, m := range ms {
		parts = append(parts, fmt.Sprintf("%s %.4g ms/step (%s, fastest of %d)", m.GPU, m.TimeMs, m.OC, m.Variants))
	}
	return strings.Join(parts, "; ")
}

// dates says when the data sets of m were made: a day, or the first and the last.
func dates(m *dataset.Fastest) string {
	from, to := m.From.Format("2006-01-02"), m.To.Format("2006-01-02")
	if from == to {
		return from
	}
	return from + " to " + to
}

// measuredOn is the fastest variant of the stencil measured on gpu, nil where none was.
func (pr *Prediction) measuredOn(gpu string) *dataset.Fastest {
	for i := range pr.Measured {
		if pr.Measured[i].GPU == gpu {
			return &pr.Measured[i]
		}
	}
	return nil
}

// writeGPUs is the table of every GPU, and the models and warnings behind it.
func (pr *Prediction) writeGPUs(w io.Writer, allGPUs bool) {
	if allGPUs {
		fmt.Fprintf(w, "Every catalogued GPU, fastest first (each under its own best OC)\n")
	} else {
		fmt.Fprintf(w, "The GPUs the models were trained on and those with a price, fastest first (each under its own best OC)\n")
	}
	ref := pr.Best
	names := make([]string, len(pr.GPUs))
	for i, g := range pr.GPUs {
		names[i] = g.GPU
	}
	col := column(12, names)
	fmt.Fprintf(w, "  %-*s %-13s %10s %15s %8s  %-16s %s\n", col, "GPU", "arch", "ms/step", intervalLevel(ref), "speedup", "OC", "source")
	for _, g := range pr.GPUs {
		if g.Best == nil {
			continue
		}
		mark := ""
		if g.GPU == pr.GPU {
			mark = " <- asked"
		}
		fmt.Fprintf(w, "  %-*s %-13s %10.4g %15s %7.2fx  %-16s %s%s\n", col, g.GPU, g.Arch, g.Best.TimeMs, intervalText(g.Best), ref.TimeMs/g.Best.TimeMs, g.Best.OC, g.Best.sourceText(), mark)
	}
	for _, g := range pr.GPUs {
		if g.Best == nil {
			fmt.Fprintf(w, "  %-*s not predicted: %s\n", col, g.GPU, g.Reason)
		}
	}
	if len(pr.Measured) > 0 {
		fmt.Fprintf(w, "  measured (smart's own runs of this stencil): %s\n", measuredText(pr.Measured))
	}
	fmt.Fprintln(w, "  (speedup: the time on the GPU asked about over this GPU's; every GPU is predicted as it would be")
	if pr.defaultSearch {
		fmt.Fprintln(w, "  if asked about, so smart recommend and smart predict --gpu GPU give the same times)")
	} else {
		fmt.Fprintln(w, "  if asked about with these flags; smart recommend searches with the default budget, ranking and")
		fmt.Fprintln(w, "  transfer, and may give other times)")
	}
	if !allGPUs {
		fmt.Fprintln(w, "  (--all-gpus adds every other catalogued GPU, predicted from its hardware description alone)")
	}
	fmt.Fprintln(w, "\nModels")
	if len(pr.Models) == 0 {
		fmt.Fprintln(w, "  none: the analytic model answered (smart estimate shows its terms)")
	}
	for _, m := range pr.Models {
		fmt.Fprintf(w, "  %s: %s %s, %s\n", m.Name, m.Kind, m.Task, m.Summary())
	}
	for _, warn := range pr.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// WritePredictionRows writes several predictions as smart predict prints them: a row each,
// then a note per kind of provenance naming the models behind it.
func WritePredictionRows(w io.Writer, preds []*Prediction) error {
	bw := bufio.NewWriter(w)
	// The fastest GPU is set against the asked GPU's row of the same table, not against Best,
	// which a model of the asked GPU's own measurements may have given.
	var stencils []string
	for _, pr := range preds {
		stencils = append(stencils, pr.Stencil.Name)
	}
	width := column(24, stencils)
	bests := make([]*Choice, len(preds))
	for i, pr := range preds {
		bests[i] = pr.Best
	}
	fmt.Fprintf(bw, "%-*s %-10s %-16s %6s %10s %15s  %-12s %8s  %s\n", width, "stencil", "GPU", "best OC", "p", "ms/step", intervalLevel(bests...), "fastest GPU", "speedup", "setting")
	for _, pr := range preds {
		fast := pr.GPUs[0]
		p := "-" // no classifier read the stencil (BasisAnalytic)
		if len(pr.Classes) > 0 {
			p = strconv.FormatFloat(pr.Best.Probability, 'f', 3, 64)
		}
		fmt.Fprintf(bw, "%-*s %-10s %-16s %6s %10.4g %15s  %-12s %7.2fx  %s\n", width, pr.Stencil.Name, pr.GPU, pr.Best.OC, p, pr.Best.TimeMs, intervalText(pr.Best), fast.GPU, pr.Best.TimeMs/fast.Best.TimeMs, pr.Best.Setting)
	}
	fmt.Fprintln(bw, "(speedup: the GPU asked about's time over the fastest GPU's, both from the table of every GPU that smart predict FILE prints)")
	// What stands behind the times, once per kind, naming the stencils where kinds differ.
	var texts []string
	models, names := map[string][]string{}, map[string][]string{}
	for _, pr := range preds {
		src := pr.Best.Source
		if !slices.Contains(texts, src.Text) {
			texts = append(texts, src.Text)
		}
		if src.Model != "" && !slices.Contains(models[src.Text], src.Model) {
			models[src.Text] = append(models[src.Text], src.Model)
		}
		names[src.Text] = append(names[src.Text], pr.Stencil.Name)
	}
	for _, t := range texts {
		of := ""
		if len(texts) > 1 {
			of = " of " + strings.Join(names[t], ", ")
		}
		by := ""
		if len(models[t]) > 0 {
			by = "; " + strings.Join(models[t], ", ")
		}
		fmt.Fprintf(bw, "(times on %s%s: %s%s)\n", preds[0].GPU, of, t, by)
	}
	for _, pr := range preds {
		for _, warn := range pr.Warnings {
			fmt.Fprintf(bw, "warning: %s: %s\n", pr.Stencil.Name, warn)
		}
	}
	return bw.Flush()
}

// WriteText writes the recommendation as smart recommend prints it for one stencil: the GPUs
// ranked by time with their cost, then the advice and what stands behind the times.
func (r *Recommendation) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	s := r.Stencil
	fmt.Fprintf(bw, "%s: %d-D, order %d, %s, grid %s, %s; priced for %s\n\n", s.Name, s.Dims, s.Order, english.Plural(s.Points, "point"), smart.FormatGrid(toGrid(s.Grid), len(s.Grid)), s.Dtype, r.Workload)
	total := "time"
	if r.Workload.Hours > 0 {
		total = "steps"
	}
	var fastest *Choice
	if len(r.GPUs) > 0 {
		fastest = r.GPUs[0].Best
	}
	names := make([]string, len(r.GPUs))
	for i, g := range r.GPUs {
		names[i] = g.GPU
	}
	col := column(12, names)
	fmt.Fprintf(bw, "  %-4s %-*s %10s %15s %10s %8s %10s %5s  %-16s %s\n", "rank", col, "GPU", "ms/step", intervalLevel(fastest), total, "$/h", "cost", "$rank", "best OC", "source")
	for _, g := range r.GPUs {
		if g.Best != nil {
			r.writeRow(bw, g, col)
		}
	}
	for _, g := range r.GPUs {
		if g.Best == nil {
			fmt.Fprintf(bw, "  -    %-*s not predicted: %s\n", col, g.GPU, g.Reason)
		}
	}
	fmt.Fprintln(bw)
	if r.Have != nil {
		fmt.Fprintf(bw, "%s.\n", r.Have.Advice)
	}
	if len(r.Overlapping) > 0 {
		fmt.Fprintf(bw, "The %s's interval overlaps that of %s: at that level the models cannot say which is faster; measure before you rent.\n", r.Fastest, strings.Join(r.Overlapping, ", "))
	}
	writeSources(bw, r.GPUs)
	var bounded []string
	for _, g := range r.GPUs {
		if g.Best != nil && g.Best.Bounded != nil && g.Best.Bounded.By == BoundCalibrated {
			bounded = append(bounded, g.GPU)
		}
	}
	if len(bounded) > 0 {
		fmt.Fprintf(bw, "Bounded: the times of %s are the nearer edge of the calibrated analytic model's interval: the runtime model, asked outside its training range, answered beyond it (smart predict --gpu GPU gives its time).\n",
			strings.Join(bounded, ", "))
	}
	var prices []*smart.Price
	for _, g := range r.GPUs {
		prices = append(prices, g.Price)
	}
	if src := smart.PriceSources(prices...); len(src) > 0 {
		fmt.Fprintf(bw, "Prices: on-demand, per GPU: %s.\n", strings.Join(src, "; "))
	}
	if len(r.Measured) > 0 {
		fmt.Fprintf(bw, "Measured (smart's own runs of this stencil): %s.\n", measuredText(r.Measured))
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", warn)
	}
	return bw.Flush()
}

// writeSources says what each predicted GPU's time rests on: one line where all rest on the
// same, else one per model and basis, naming its GPUs.
func writeSources(w io.Writer, gpus []Ranked) {
	type group struct {
		src  Provenance
		gpus []string
	}
	var groups []*group
	for _, g := range gpus {
		if g.Best == nil {
			continue
		}
		src := g.Best.Source
		k := slices.IndexFunc(groups, func(gr *group) bool { return gr.src.Model == src.Model && gr.src.Text == src.Text })
		if k < 0 {
			groups, k = append(groups, &group{src: src}), len(groups)
		}
		groups[k].gpus = append(groups[k].gpus, g.GPU)
	}
	if len(groups) == 1 {
		fmt.Fprintf(w, "Times: %s, %s.\n", groups[0].src.Model, groups[0].src.Text)
		return
	}
	for i, gr := range groups {
		lead := "      "
		if i == 0 {
			lead = "Times:"
		}
		fmt.Fprintf(w, "%s %s: %s, %s.\n", lead, strings.Join(gr.gpus, ", "), gr.src.Model, gr.src.Text)
	}
}

// writeRow is the row of a predicted GPU g in a column of width col.
func (r *Recommendation) writeRow(w io.Writer, g Ranked, col int) {
	price, crank := "-", "-"
	if g.Price != nil {
		price = fmt.Sprintf("%.3f", g.Price.USDPerHour)
	}
	if g.CostRank > 0 {
		crank = fmt.Sprint(g.CostRank)
	}
	amount := FormatSeconds(g.Seconds)
	if r.Workload.Hours > 0 {
		amount = fmt.Sprintf("%.3g", g.StepsDone)
	}
	fmt.Fprintf(w, "  %-4d %-*s %10.4g %15s %10s %8s %10s %5s  %-16s %s%s\n", g.TimeRank, col, g.GPU, g.Best.TimeMs, intervalText(g.Best), amount, price, FormatUSD(g.CostUSD), crank, g.Best.OC, g.Best.sourceText(), r.mark(g.GPU))
}

// mark says what gpu is to the recommendation: the fastest, the most cost-efficient, the
// user's own.
func (r *Recommendation) mark(gpu string) string {
	mark := ""
	switch gpu {
	case r.Fastest:
		mark = " <- fastest"
	case r.Cheapest:
		mark = " <- most cost-efficient"
	}
	if r.Fastest == r.Cheapest && gpu == r.Fastest {
		mark = " <- fastest and most cost-efficient"
	}
	if r.Have != nil && gpu == r.Have.GPU {
		mark += " (yours)"
	}
	return mark
}

// WriteRecommendationRows writes several recommendations as smart recommend prints them: a row
// each with the fastest and the most cost-efficient GPU.
func WriteRecommendationRows(w io.Writer, recs []*Recommendation) error {
	bw := bufio.NewWriter(w)
	var names, stencils []string
	for _, r := range recs {
		names = append(names, r.GPUs[0].GPU)
		stencils = append(stencils, r.Stencil.Name)
	}
	col, width := column(12, names), column(24, stencils)
	fastest := make([]*Choice, len(recs))
	for i, r := range recs {
		fastest[i] = r.GPUs[0].Best
	}
	fmt.Fprintf(bw, "%-*s %-*s %10s %15s %-22s %10s  %s\n", width, "stencil", col, "fastest", "ms/step", intervalLevel(fastest...), "most cost-efficient", "cost", "advice")
	for _, r := range recs {
		fast, cheap, cost := r.GPUs[0], "-", "-"
		for _, g := range r.GPUs {
			if g.GPU == r.Cheapest {
				cheap, cost = g.GPU, FormatUSD(g.CostUSD)
			}
		}
		var advice []string
		if len(r.Overlapping) > 0 {
			advice = append(advice, fmt.Sprintf("the fastest's interval overlaps the %s's: measure before you rent", strings.Join(r.Overlapping, "'s, the ")))
		}
		if r.Have != nil && r.Have.Advice != "" {
			advice = append(advice, r.Have.Advice)
		}
		fmt.Fprintf(bw, "%-*s %-*s %10.4g %15s %-22s %10s  %s\n", width, r.Stencil.Name, col, fast.GPU, fast.Best.TimeMs, intervalText(fast.Best), cheap, cost, strings.Join(advice, "; "))
	}
	for _, r := range recs {
		for _, warn := range r.Warnings {
			fmt.Fprintf(bw, "warning: %s: %s\n", r.Stencil.Name, warn)
		}
	}
	return bw.Flush()
}

// Summary says in a line what a model was trained on and how well it did.
func (m ModelInfo) Summary() string {
	var parts []string
	// Data sets measured on one GPU are summed per GPU: a model may learn from a dozen of them. A
	// classifier's row is a stencil labelled from many measurements, a runtime model's is one.
	type sum struct{ rows, measurements, sets int }
	measured := map[string]sum{}
	var gpus []string
	for _, d := range m.Data {
		if len(d.GPUs) == 1 && d.Sources["simulated"] == 0 && d.Sources["measured"] >= d.Rows {
			if d.Rows == 0 {
				continue // none of its stencils had the model's dimensions
			}
			if _, ok := measured[d.GPUs[0]]; !ok {
				gpus = append(gpus, d.GPUs[0])
			}
			v := measured[d.GPUs[0]]
			measured[d.GPUs[0]] = sum{v.rows + d.Rows, v.measurements + d.Sources["measured"], v.sets + 1}
			continue
		}
		parts = append(parts, fmt.Sprintf("%d rows (%s, %d GPUs): %s", d.Rows, models.SourceCounts(d.Sources), len(d.GPUs), d.Path))
	}
	for _, g := range gpus {
		v := measured[g]
		sets := "data sets"
		if v.sets == 1 {
			sets = "data set"
		}
		if v.rows == v.measurements {
			parts = append(parts, fmt.Sprintf("%d rows measured on the %s (%d %s)", v.rows, g, v.sets, sets))
		} else {
			parts = append(parts, fmt.Sprintf("%d rows from %d measurements on the %s (%d %s)", v.rows, v.measurements, g, v.sets, sets))
		}
	}
	s := "trained on " + strings.Join(parts, "; ")
	if m.CV != nil && m.CV.Accuracy > 0 {
		s += fmt.Sprintf("; %d-fold accuracy %.1f%%", m.CV.Folds, 100*m.CV.Accuracy)
	}
	if m.CV != nil && m.CV.MAPE > 0 {
		s += fmt.Sprintf("; %d-fold MAPE %.1f%%", m.CV.Folds, m.CV.MAPE)
	}
	return s
}

// line is the provenance as "model, text".
func (p Provenance) line() string { return fmt.Sprintf("%s, %s", p.Model, p.Text) }

// sourceText is the basis of a choice, and what bounded it where something did.
func (c *Choice) sourceText() string {
	src := string(c.Source.Basis)
	if c.Source.Basis == BasisMeasured {
		src = "model of its measurements" // a prediction: the times measured are listed apart
	}
	if c.Bounded != nil {
		src += ", " + c.Bounded.By
	}
	return src
}

// analyticMs is the analytic model's time of a choice's setting, or "-" without one.
func analyticMs(c Choice) string {
	if c.Analytic == nil {
		return "-"
	}
	return strconv.FormatFloat(c.Analytic.TimeMs, 'g', 4, 64)
}

// intervalText is a choice's interval as "lo-hi", or "-" without one.
func intervalText(c *Choice) string {
	if c == nil || c.Interval == nil {
		return "-"
	}
	return fmt.Sprintf("%.3g-%.3g", c.Interval.LoMs, c.Interval.HiMs)
}

// intervalLevel is the level of the first interval among the choices ("interval" without one).
func intervalLevel(cs ...*Choice) string {
	for _, c := range cs {
		if c != nil && c.Interval != nil {
			return fmt.Sprintf("%.0f%% interval", 100*c.Interval.Level)
		}
	}
	return "interval"
}

func ocList(ocs []smart.Combination) string {
	names := make([]string, len(ocs))
	for i, oc := range ocs {
		names[i] = oc.String()
	}
	return strings.Join(names, " ")
}

// column is the width of a table's column of names: least, or the longest name (a catalogue
// file's GPU, the campaign's stencils: rand3d-o3-s1-0142-f32-large).
func column(least int, names []string) int {
	w := least
	for _, n := range names {
		w = max(w, len(n))
	}
	return w
}
