package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"smart"
	"smart/catalog"
	"smart/internal/atomicfile"
	"smart/predict"
)

// maxHours bounds --hours: a century of renting.
const maxHours = 876600

// recommendHelp is the description of --help, with examples.
const recommendHelp = `
Ranks GPUs for a stencil by predicted time per step and by cost (on-demand price x time), marks
the fastest and the most cost-efficient, and says how much better they are than the GPU you have
(--have): StencilMART's "to rent or not to rent a cloud GPU" (section V-D). Each GPU is
predicted under its own best OC and setting, searched with the same budget on every GPU, by the
same models as smart predict (the embedded defaults are trained on simulated data; every row says
what stands behind its number).

Costs are for --steps time steps (default: the stencil's own steps), or, with --hours, for renting
that long (each GPU then does as many steps as it can). GPUs without a price (not rented by the
catalogued provider) are ranked by time only. Without --gpus it ranks the GPUs the models were
trained on (simulated or measured) and those with a price; --all-gpus ranks every catalogued GPU,
the others predicted from their hardware description alone. --html writes one self-contained page with the
charts (time, cost and best OC per GPU), the tables and the data sources. Several files or a
directory give one row per stencil (and one section each in the page).

Examples:
  smart recommend data/stencils/j3d7pt.json --have v100 --steps 100000
  smart recommend j2d9pt --gpus a100,h100,l4,t4,a10g --hours 10 --html report.html
  smart recommend stencils/ --json | jq '{stencil: .stencil.name, fastest, most_cost_efficient}'`

// recommendOpts are the flags of the command.
type recommendOpts struct {
	steps       int64
	modelFiles  dirList
	gpuList     string
	allGPUs     bool
	have        string
	hours       float64
	htmlOut     string
	force       bool
	catalogFile string
	asJSON      bool
}

func (o *recommendOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.gpuList, "gpus", "", "comma-separated GPUs to rank (default: those the models were trained on and those with a price)")
	fs.BoolVar(&o.allGPUs, "all-gpus", false, "rank every catalogued GPU (smart gpus) where --gpus names none")
	fs.StringVar(&o.have, "have", "", "the GPU you have, to compare against")
	fs.Float64Var(&o.hours, "hours", 0, "price renting for this many hours instead of a number of steps")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report with charts to this file (replacing only a report of smart's, or with --force)")
	fs.BoolVar(&o.force, "force", false, "overwrite the --html file even if it is not a report smart wrote")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
}

func runRecommend(ctx context.Context, e *env, args []string) error {
	var o recommendOpts
	fs := newFlags(e, "recommend", "FILE|DIR... [--gpus LIST] [--have NAME] [--steps N | --hours H] [--html OUT] [--json]", recommendHelp)
	o.register(fs)
	fs.Int64Var(&o.steps, "steps", 0, "time steps to price (default: the stencil's steps)")
	fs.Var(&o.modelFiles, "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	gpus, err := o.check(fs, rest)
	if err != nil {
		return err
	}
	p, err := newPredictor(o.catalogFile, o.modelFiles)
	if err != nil {
		return err
	}
	p.AllGPUs = o.allGPUs
	if err := checkGPUNames(p.Catalog, gpus, o.have); err != nil {
		return err
	}
	inputs, err := predictInputs(e, rest)
	if err != nil {
		return err
	}
	if err := checkGiven(p, inputs); err != nil {
		return err
	}
	recs, err := o.recommend(ctx, e, p, inputs, gpus)
	if err != nil {
		return err
	}
	switch {
	case o.asJSON:
	case len(recs) == 1:
		printRecommendation(e.stdout, recs[0])
	default:
		printRecommendationRows(e.stdout, recs)
	}
	if o.htmlOut != "" {
		var b bytes.Buffer
		if err := predict.WriteHTML(&b, recs, time.Now()); err != nil {
			return err
		}
		if err := atomicfile.Write(o.htmlOut, b.Bytes()); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", o.htmlOut)
	}
	return nil
}

// check refuses flags that cannot work together and --html that names another file; it
// returns the GPUs of --gpus.
func (o *recommendOpts) check(fs *flag.FlagSet, rest []string) ([]string, error) {
	switch {
	case len(rest) == 0:
		return nil, usagef("give a stencil file, a directory of them or an embedded sample name")
	case o.steps < 0 || !(o.hours >= 0) || math.IsInf(o.hours, 1), o.hours == 0 && flagsGiven(fs, "hours"): // NaN too
		return nil, usagef("--steps and --hours must be positive")
	case o.hours > maxHours: // the steps done in them, and their cost, must stay finite
		return nil, usagef("--hours is %g; give at most %g (a century)", o.hours, float64(maxHours))
	case o.steps > 0 && o.hours > 0:
		return nil, usagef("give --steps or --hours, not both")
	case o.allGPUs && o.gpuList != "":
		return nil, usagef("give --gpus or --all-gpus, not both")
	}
	var gpus []string
	for _, g := range strings.Split(o.gpuList, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gpus = append(gpus, g)
		}
	}
	if o.htmlOut != "" {
		if err := checkOutput("--html", o.htmlOut, o.force, outputKind{"a report", predict.IsReportFile}); err != nil {
			return nil, err
		}
	}
	return gpus, nil
}

// recommend ranks the GPUs for every input, printing each as JSON as it comes with --json.
func (o *recommendOpts) recommend(ctx context.Context, e *env, p *predict.Predictor, inputs []predict.Input, gpus []string) ([]*predict.Recommendation, error) {
	bar := newProgress(e, "recommend", len(inputs))
	var recs []*predict.Recommendation
	for i, in := range inputs {
		r, err := p.Recommend(ctx, in, gpus, o.have, predict.Workload{Steps: o.steps, Hours: o.hours})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.File, err)
		}
		if len(inputs) > 1 {
			bar.Update(i + 1)
		}
		recs = append(recs, r)
		if o.asJSON {
			if err := writeJSON(e, r); err != nil {
				return nil, err
			}
		}
	}
	return recs, nil
}

// checkGPUNames looks up the GPUs named on the command line before any prediction, so that a
// misspelt one is a usage error (exit 2) as in tune, not a failure of the first stencil.
func checkGPUNames(cat *catalog.Catalog, gpus []string, have string) error {
	var notCUDA []string // "W6600 (AMD)"
	for _, n := range gpus {
		g, err := cat.Lookup(n)
		if err != nil {
			return usagef("--gpus: %w", err)
		}
		if g.RunsCUDA() != nil {
			notCUDA = append(notCUDA, fmt.Sprintf("%s (%s)", g.Name, g.Vendor))
		}
	}
	if have == "" {
		if len(gpus) > 0 && len(notCUDA) == len(gpus) {
			// Each would be a row "not predicted" and the ranking empty: say why now.
			return usagef("--gpus names only %s; %v, so none can be predicted: name NVIDIA GPUs (smart gpus lists them)",
				strings.Join(notCUDA, ", "), smart.ErrNotCUDA)
		}
		return nil
	}
	if g, err := cat.Lookup(have); err != nil {
		return usagef("--have: %w", err)
	} else if err := g.RunsCUDA(); err != nil {
		return usagef("--have: %v", err)
	}
	return nil
}

func printRecommendation(w io.Writer, r *predict.Recommendation) {
	s := r.Stencil
	fmt.Fprintf(w, "%s: %d-D, order %d, %d points, grid %s, %s; priced for %s\n\n", s.Name, s.Dims, s.Order, s.Points, gridString(s.Grid), s.Dtype, r.Workload)
	total := "time"
	if r.Workload.Hours > 0 {
		total = "steps"
	}
	var fastest *predict.Choice
	if len(r.GPUs) > 0 {
		fastest = r.GPUs[0].Best
	}
	names := make([]string, len(r.GPUs))
	for i, g := range r.GPUs {
		names[i] = g.GPU
	}
	col := gpuColumn(names)
	fmt.Fprintf(w, "  %-4s %-*s %10s %15s %10s %8s %10s %5s  %-16s %s\n", "rank", col, "GPU", "ms/step", intervalLevel(fastest), total, "$/h", "cost", "$rank", "best OC", "source")
	for _, g := range r.GPUs {
		if g.Best == nil {
			continue
		}
		price, crank := "-", "-"
		if g.Price != nil {
			price = fmt.Sprintf("%.3f", g.Price.USDPerHour)
		}
		if g.CostRank > 0 {
			crank = fmt.Sprint(g.CostRank)
		}
		amount := predict.FormatSeconds(g.Seconds)
		if r.Workload.Hours > 0 {
			amount = fmt.Sprintf("%.3g", g.StepsDone)
		}
		mark := recommendationMark(r, g.GPU)
		src := string(g.Best.Source.Basis)
		if g.Best.Bounded != nil {
			src += ", " + g.Best.Bounded.By
		}
		fmt.Fprintf(w, "  %-4d %-*s %10.4g %15s %10s %8s %10s %5s  %-16s %s%s\n", g.TimeRank, col, g.GPU, g.Best.TimeMs, intervalText(g.Best), amount, price, predict.FormatUSD(g.CostUSD), crank, g.Best.OC, src, mark)
	}
	for _, g := range r.GPUs {
		if g.Best == nil {
			fmt.Fprintf(w, "  -    %-*s not predicted: %s\n", col, g.GPU, g.Reason)
		}
	}
	fmt.Fprintln(w)
	if r.Have != nil {
		fmt.Fprintf(w, "%s.\n", r.Have.Advice)
	}
	if len(r.Overlapping) > 0 {
		fmt.Fprintf(w, "The %s's interval overlaps that of %s: at that level the models cannot say which is faster; measure before you rent.\n", r.Fastest, strings.Join(r.Overlapping, ", "))
	}
	if len(r.GPUs) > 0 && r.GPUs[0].Best != nil {
		fmt.Fprintf(w, "Times: %s, %s.\n", r.GPUs[0].Best.Source.Model, r.GPUs[0].Best.Source.Text)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// recommendationMark says what GPU is of the recommendation r: the fastest, the most
// cost-efficient, the user's own.
func recommendationMark(r *predict.Recommendation, gpu string) string {
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

func printRecommendationRows(w io.Writer, recs []*predict.Recommendation) {
	var names []string
	for _, r := range recs {
		names = append(names, r.GPUs[0].GPU)
	}
	col := gpuColumn(names)
	fmt.Fprintf(w, "%-24s %-*s %10s %-22s %10s  %s\n", "stencil", col, "fastest", "ms/step", "most cost-efficient", "cost", "advice")
	for _, r := range recs {
		fast, cheap, cost := r.GPUs[0], "-", "-"
		for _, g := range r.GPUs {
			if g.GPU == r.Cheapest {
				cheap, cost = g.GPU, predict.FormatUSD(g.CostUSD)
			}
		}
		advice := ""
		if r.Have != nil {
			advice = r.Have.Advice
		}
		fmt.Fprintf(w, "%-24s %-*s %10.4g %-22s %10s  %s\n", r.Stencil.Name, col, fast.GPU, fast.Best.TimeMs, cheap, cost, advice)
	}
}
