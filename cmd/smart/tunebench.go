package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/catalog"
	"smart/models/roofline"
	"smart/tuner"
)

// kernelTunerBest is Kernel Tuner 1.4's best strategy per file, replaying the same caches with
// default options (20 seeds, 10 for Bayesian optimization), as issue 9 quotes it: the median
// evaluations to reach 95% of the optimum and how many runs got there.
var kernelTunerBest = map[string]struct {
	Strategy string
	Median   int
	Reached  string
}{
	"convolution_milo/A100":    {"genetic algorithm", 153, "17/20"},
	"convolution_milo/A4000":   {"basin hopping", 58, "20/20"},
	"convolution_milo/A6000":   {"basin hopping", 97, "19/20"},
	"convolution_milo/MI250X":  {"basin hopping", 81, "19/20"},
	"convolution_milo/W6600":   {"basin hopping", 102, "16/20"},
	"convolution_milo/W7800":   {"genetic algorithm", 136, "20/20"},
	"dedispersion_milo/MI250X": {"bayesian optimization", 57, "10/10"},
	"dedispersion_milo/W6600":  {"dual annealing", 36, "20/20"},
	"dedispersion_milo/W7800":  {"bayesian optimization", 23, "10/10"},
}

type tuneBenchOutput struct {
	Share     float64          `json:"share"`
	Budget    int              `json:"budget"`
	Cases     []tuneBenchCase  `json:"cases"`
	Reach     []tuneBenchReach `json:"reach"`
	Standards []tuner.Standard `json:"standards,omitempty"`
}

type tuneBenchCase struct {
	Name     string       `json:"name"`
	Settings int          `json:"settings"`
	Optimum  float64      `json:"optimum_ms"`
	Source   smart.Source `json:"source"`
}

type tuneBenchReach struct {
	Case        string   `json:"case"`
	Method      string   `json:"method"`
	Seeds       int      `json:"seeds"`
	FirstSeed   uint64   `json:"first_seed"`
	Reached     int      `json:"reached"`
	Median      *float64 `json:"median"` // null when fewer than half the seeds got there
	P95         *float64 `json:"p95"`
	Evaluations []int    `json:"evaluations"` // per seed; 0: not within the budget
}

func runTuneBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tune-bench", "[KERNEL-TUNER-CACHE...] [--sim STENCIL] [flags]", `
Compares the tuning strategies on replayed measurements and on a simulated stencil space. For
each data set it finds the optimum (every setting is replayed), runs every strategy from many
seeds with the target optimum/--share, and prints the evaluations each needs (failed ones
included): median and 95th percentile over the seeds, counting a seed that did not get there
within --budget as never, and how many got there; Kernel Tuner 1.4's best strategy on the file
is printed beside it where issue 9 quotes one. Then IterML's two standards (Cui and Feng,
section 5) as a function of the share of the space sampled: the median and the 5th percentile
of optimum/best over the seeds, for random sampling and for IterML spending that budget in four
iterations. Strategies run with fixed, documented settings, the same on every data set.
pipeline-transfer and bayes-transfer also get a prior: the same kernel's caches on the other
GPUs given on the command line (never the file's own), so they run only on Kernel Tuner files
whose kernel was given for more than one GPU.

Examples:
  smart tune-bench data/kernel-tuner/convolution_milo/A100.json.gz --methods random,pipeline --seeds 5 --json
  smart tune-bench --sim j3d7pt --gpu a100 --oc ST_TB --methods random,cstuner,bayes --seeds 5 --ratios ""
  smart tune-bench data/kernel-tuner/convolution_milo/[AMW]*[0-9].json.gz   # takes minutes`)
	methods := fs.String("methods", "random,iterml,cstuner,pipeline,bayes,pipeline-transfer,bayes-transfer", "strategies compared, comma-separated")
	seeds := fs.Int("seeds", 20, "seeds per strategy and data set")
	firstSeed := fs.Uint64("first-seed", 0, "seed of the first search (the seeds run are this to this+seeds-1): hold out the seeds a strategy's settings were chosen on")
	randomSeeds := fs.Int("random-seeds", 100, "seeds of random sampling, which is cheap")
	budget := fs.Int("budget", 2000, "most evaluations of one search")
	share := fs.Float64("share", 0.95, "the goal: best <= optimum/share")
	ratios := fs.String("ratios", "0.0025,0.005,0.01,0.02,0.04,0.08", "shares of the space sampled for IterML's standards (empty: skip them)")
	simStencil := fs.String("sim", "", "also compare on this stencil's space under the analytic model")
	gpuName := fs.String("gpu", defaultSimGPU, "GPU of the simulated stencil")
	ocName := fs.String("oc", "ST_TB", "OC of the simulated stencil")
	parallel := fs.Int("parallel", 0, "searches run at once (0: one per CPU)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0 && *simStencil == "":
		return usagef("give Kernel Tuner cache files, --sim STENCIL, or both")
	case *seeds < 1 || *randomSeeds < 1 || *budget < 1:
		return usagef("--seeds, --random-seeds and --budget must be at least 1")
	case *parallel < 0:
		return usagef("--parallel is %d; give 0 (one search per CPU) or more", *parallel)
	case !(*share > 0 && *share <= 1):
		return usagef("--share must lie in (0, 1]")
	}
	contenders, err := benchContenders(*methods, *seeds, *randomSeeds)
	if err != nil {
		return err
	}
	for i := range contenders {
		contenders[i].FirstSeed = *firstSeed
	}
	var ratioList []float64
	for _, f := range strings.FieldsFunc(*ratios, func(r rune) bool { return r == ',' }) {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0 && v <= 1) {
			return usagef("--ratios: %q is not a share in (0, 1]", f)
		}
		ratioList = append(ratioList, v)
	}
	cases, sources, err := benchCases(ctx, e, files, *simStencil, *gpuName, *ocName)
	if err != nil {
		return err
	}
	for _, c := range contenders {
		if c.ForCase != nil && !slices.ContainsFunc(cases, func(cs tuner.Case) bool { return cs.Prior != nil }) {
			return usagef("--methods %s needs a prior: give the same kernel's caches of at least two GPUs (each is tuned with the others' as its prior)", c.Name)
		}
	}
	out := tuneBenchOutput{Share: *share, Budget: *budget}
	for i, c := range cases {
		out.Cases = append(out.Cases, tuneBenchCase{Name: c.Name, Settings: c.Size, Optimum: c.Optimum, Source: sources[i]})
	}
	bar := newProgress(e, "searches", tuner.Searches(cases, contenders))
	n := 0
	reach, err := tuner.Compare(ctx, cases, contenders, *budget, *share, *parallel, func() { n++; bar.Update(n) })
	var stopped error
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			return err
		}
		// Interrupted: report the rows whose every seed finished, then say so.
		bar.Stop(n)
		complete := slices.DeleteFunc(slices.Clone(reach), func(r tuner.Reach) bool { return !r.Complete() })
		stopped = fmt.Errorf("interrupted after %d of %d searches; the %d rows of %d whose seeds all finished are printed above: %w",
			n, tuner.Searches(cases, contenders), len(complete), len(reach), err)
		reach, ratioList = complete, nil
	}
	for _, r := range reach {
		o := tuneBenchReach{Case: r.Case, Method: r.Method, Seeds: len(r.Evaluations), FirstSeed: r.FirstSeed, Reached: r.Reached(), Evaluations: r.Evaluations}
		o.Median, o.P95 = finite(r.Quantile(0.5)), finite(r.Quantile(0.95))
		out.Reach = append(out.Reach, o)
	}
	if len(ratioList) > 0 {
		std := []tuner.Contender{
			{Name: "random", New: func() tuner.Method { return &tuner.Random{} }, Seeds: *seeds, FirstSeed: *firstSeed},
			{Name: "iterml", Seeds: *seeds, FirstSeed: *firstSeed, ForBudget: func(b int) tuner.Method {
				return &tuner.IterML{Pick: max(1, b/4), Threads: 1}
			}},
		}
		bar := newProgress(e, "standards", len(cases)*2**seeds*len(ratioList))
		n := 0
		for _, c := range cases {
			// Shares whose budget exceeds --budget are left out: they say nothing new and cost most.
			var rs []float64
			for _, r := range ratioList {
				if r*float64(c.Size) <= float64(*budget) {
					rs = append(rs, r)
				} else {
					n += 2 * *seeds
				}
			}
			s, err := tuner.Standards(ctx, c, std, rs, *parallel, func() { n++; bar.Update(n) })
			if err != nil {
				return err
			}
			out.Standards = append(out.Standards, s...)
		}
	}
	if *asJSON {
		if err := writeJSON(e, out); err != nil {
			return err
		}
		return stopped
	}
	printTuneBench(e, out)
	return stopped
}

// benchContenders builds the compared strategies with the settings of the headline comparison:
// every strategy but exhaustive (whose search finds each case's optimum), and NAME-transfer
// for those that take a prior, given the case's.
func benchContenders(list string, seeds, randomSeeds int) ([]tuner.Contender, error) {
	compared := strategyNames(func(s tuner.Strategy) bool { return s.Name == "exhaustive" })
	transfer := strategyNames(func(s tuner.Strategy) bool { return !s.Reads(tuner.OptionPrior) })
	for _, name := range transfer {
		compared = append(compared, name+"-transfer")
	}
	var out []tuner.Contender
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(compared, name) {
			return nil, usagef("--methods: unknown strategy %q; use %s", name, joinList(compared, "or"))
		}
		base, withPrior := strings.CutSuffix(name, "-transfer")
		s, _ := tuner.LookupStrategy(base) // in compared, so known
		o := tuner.Options{Threads: 1}     // a search per CPU already
		c := tuner.Contender{Name: name, Seeds: seeds}
		switch {
		case withPrior:
			c.ForCase = func(cs tuner.Case) tuner.Method {
				if cs.Prior == nil {
					return nil
				}
				o := o
				o.Prior = cs.Prior
				return s.New(o)
			}
		case base == "random":
			c.New, c.Seeds = func() tuner.Method { return s.New(o) }, randomSeeds
		default:
			c.New = func() tuner.Method { return s.New(o) }
		}
		out = append(out, c)
	}
	return out, nil
}

// benchCases opens the data sets and finds their optima.
func benchCases(ctx context.Context, e *env, files []string, sim, gpuName, ocName string) ([]tuner.Case, []smart.Source, error) {
	var cases []tuner.Case
	var sources []smart.Source
	var kts []*tuner.KernelTuner
	for _, f := range files {
		k, err := tuner.OpenKernelTuner(ctx, f, "")
		if err != nil {
			return nil, nil, err
		}
		if k.Note != "" {
			fmt.Fprintln(e.stderr, k.Note)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".json")
		c := tuner.Case{Name: name, Problem: k.Problem()}
		if c.Optimum, c.Size, err = tuner.Optimum(ctx, c.Problem); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		cases, sources, kts = append(cases, c), append(sources, smart.Imported), append(kts, k)
	}
	// The transfer strategies' prior: the same kernel measured on the other GPUs given.
	for i, k := range kts {
		var others []*tuner.KernelTuner
		for j, o := range kts {
			if j != i && o.Kernel.Name == k.Kernel.Name && o.Device != k.Device {
				others = append(others, o)
			}
		}
		if len(others) > 0 {
			cases[i].Prior = tuner.TransferFrom(others)
		}
	}
	if sim != "" {
		st, err := loadStencil(e, sim, smart.Limits{MaxOrder: smart.MaxMaxOrder})
		if err != nil {
			return nil, nil, err
		}
		cat, err := catalog.Default()
		if err != nil {
			return nil, nil, err
		}
		gpu, err := cat.Lookup(gpuName)
		if err != nil {
			return nil, nil, usagef("--gpu: %w", err)
		}
		oc, err := smart.ParseCombination(ocName)
		if err != nil {
			return nil, nil, usagef("--oc: %v", err)
		}
		vs, err := tuner.StencilVariants(ctx, st, []smart.Combination{oc}, gpu)
		if err != nil {
			return nil, nil, err
		}
		c := tuner.Case{Name: fmt.Sprintf("%s %s on %s (simulated)", st.Name, oc, gpu.Name),
			Problem: tuner.Problem{Variants: vs, Evaluator: roofline.Evaluator{Catalog: cat}, Stencil: st, GPU: gpu.Name}}
		if c.Optimum, c.Size, err = tuner.Optimum(ctx, c.Problem); err != nil {
			return nil, nil, err
		}
		cases, sources = append(cases, c), append(sources, smart.Simulated)
	}
	return cases, sources, nil
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func printTuneBench(e *env, o tuneBenchOutput) {
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(e.stdout, "Evaluations to reach %.0f%% of the optimum (median, 95th percentile over seeds; '-': not within %d)\n\n", 100*o.Share, o.Budget)
	fmt.Fprintln(w, "data set\tsettings\tmethod\tmedian\tp95\treached\tKernel Tuner best\t")
	num := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return strconv.Itoa(int(*v))
	}
	sizes := map[string]int{}
	for _, c := range o.Cases {
		sizes[c.Name] = c.Settings
	}
	last := ""
	for _, r := range o.Reach {
		name, kt := r.Case, ""
		if name == last {
			name = ""
		} else if b, ok := kernelTunerBest[r.Case]; ok {
			kt = fmt.Sprintf("%d (%s, %s)", b.Median, b.Strategy, b.Reached)
		}
		size := ""
		if name != "" {
			size = strconv.Itoa(sizes[r.Case])
		}
		last = r.Case
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t\n", name, size, r.Method, num(r.Median), num(r.P95), r.Reached, r.Seeds, kt)
	}
	w.Flush()
	if len(o.Standards) == 0 {
		return
	}
	fmt.Fprintf(e.stdout, "\nIterML's standards: optimum/best, median and 5th percentile over seeds, by share of the space sampled\n\n")
	w = tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "data set\tshare\tevaluations\trandom median\trandom p5\titerml median\titerml p5\t")
	byKey := map[string]tuner.Standard{}
	var order []string
	for _, s := range o.Standards {
		k := s.Case + "|" + strconv.FormatFloat(s.Ratio, 'g', -1, 64)
		if _, ok := byKey[k+"|random"]; !ok && s.Method == "random" {
			order = append(order, k)
		}
		byKey[k+"|"+s.Method] = s
	}
	last = ""
	for _, k := range order {
		r, it := byKey[k+"|random"], byKey[k+"|iterml"]
		name := r.Case
		if name == last {
			name = ""
		}
		last = r.Case
		fmt.Fprintf(w, "%s\t%.2f%%\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t\n", name, 100*r.Ratio, r.Budget, r.Median, r.P5, it.Median, it.P5)
	}
	w.Flush()
}
