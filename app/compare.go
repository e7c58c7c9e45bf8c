package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models/roofline"
	"smart/tuner"
)

// transferSuffix marks a compared strategy that gets the case's prior: NAME-transfer.
const transferSuffix = "-transfer"

// ComparedNames are the strategies a comparison runs: every strategy but exhaustive (whose
// search finds each case's optimum), and NAME-transfer for those that take a prior.
func ComparedNames() []string {
	compared := StrategyNames(func(s tuner.Strategy) bool { return s.Name == "exhaustive" })
	for _, name := range StrategyNames(func(s tuner.Strategy) bool { return !s.Reads(tuner.OptionPrior) }) {
		compared = append(compared, name+transferSuffix)
	}
	return compared
}

// DefaultMethods are the strategies TuneBench compares where its Methods are nil.
var DefaultMethods = []string{"random", "iterml", "cstuner", "pipeline", "bayes", "pipeline-transfer", "bayes-transfer"}

// Contenders builds the compared strategies of names (ComparedNames) with the settings of
// the headline comparison: one thread each (a search per CPU already), seeds searches from
// firstSeed, randomSeeds for random sampling, which is cheap; NAME-transfer runs NAME with the
// case's prior, on the cases that have one.
func Contenders(names []string, seeds, randomSeeds int, firstSeed uint64) ([]tuner.Contender, error) {
	var out []tuner.Contender
	for _, name := range names {
		if !slices.Contains(ComparedNames(), name) {
			return nil, &NameError{What: "strategy", Name: name, Known: ComparedNames()}
		}
		base, withPrior := strings.CutSuffix(name, transferSuffix)
		s, _ := tuner.LookupStrategy(base) // among the compared, so known
		o := tuner.Options{Threads: 1}
		c := tuner.Contender{Name: name, Seeds: seeds, FirstSeed: firstSeed}
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

// TuneBench are the settings of a comparison of the tuning strategies.
type TuneBench struct {
	// Methods are of ComparedNames; nil: DefaultMethods, less those that need a prior where no
	// case has one (named, they are refused there).
	Methods     []string
	Seeds       int       // searches per strategy and case
	FirstSeed   uint64    // seed of the first search: hold out the seeds a strategy was chosen on
	RandomSeeds int       // searches of random sampling, which is cheap
	Budget      int       // most evaluations of one search
	Share       float64   // the goal: best <= optimum/Share
	Ratios      []float64 // shares of the space sampled for IterML's standards; nil: none
	Parallel    int       // searches run at once; 0: one per CPU

	// The cases compared (Cases): Kernel Tuner caches, and the space of stencil Sim under
	// SimOC on SimGPU (a name of the catalogue: the embedded one with CatalogFile merged over
	// it) timed by the analytic model.
	Caches      []string
	Sim         *smart.Stencil // nil: none
	SimOC       smart.Combination
	SimGPU      string
	CatalogFile string    // "": the embedded catalogue alone
	Notes       io.Writer // how a cache's space was made, and the methods left out (nil: nothing)
}

// ParseRatios reads TuneBench.Ratios from a comma-separated list such as "0.01,0.02"; empty
// items are skipped. Check tells whether the shares lie in range.
func ParseRatios(text string) ([]float64, error) {
	var out []float64
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' }) {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, wrong("Ratios", fmt.Sprintf("%q", f), "is not a share in (0, 1]")
		}
		out = append(out, v)
	}
	return out, nil
}

// Cases opens the Kernel Tuner caches and the simulated stencil's space, and finds their optima.
func (b TuneBench) Cases(ctx context.Context) ([]Case, error) {
	cases, err := KernelTunerCases(ctx, b.Caches, b.Notes)
	if err != nil || b.Sim == nil {
		return cases, err
	}
	cat, err := catalog.Load(b.CatalogFile)
	if err != nil {
		return nil, err
	}
	c, err := SimulatedCase(ctx, b.Sim, b.SimOC, b.SimGPU, cat)
	if err != nil {
		return nil, err
	}
	return append(cases, c), nil
}

// Check refuses settings that cannot be used, and builds the compared strategies.
func (b TuneBench) Check() ([]tuner.Contender, error) {
	for _, f := range []struct {
		field string
		n     int
	}{{"Seeds", b.Seeds}, {"RandomSeeds", b.RandomSeeds}, {"Budget", b.Budget}} {
		if f.n < 1 {
			return nil, wrong(f.field, fmt.Sprint(f.n), "must be at least 1")
		}
	}
	switch {
	case b.Parallel < 0:
		return nil, wrong("Parallel", fmt.Sprint(b.Parallel), "give 0 (one search per CPU) or more")
	case !(b.Share > 0 && b.Share <= 1): // NaN too
		return nil, wrong("Share", fmt.Sprint(b.Share), "must lie in (0, 1]")
	}
	for _, r := range b.Ratios {
		if !(r > 0 && r <= 1) {
			return nil, wrong("Ratios", fmt.Sprint(r), "is not a share in (0, 1]")
		}
	}
	names := b.Methods
	if names == nil {
		names = DefaultMethods
	}
	for i, name := range names {
		if name == "" {
			return nil, wrong("Methods", "", "names an empty strategy; use %s", JoinList(ComparedNames(), "or"))
		}
		if slices.Contains(names[:i], name) {
			return nil, wrong("Methods", name, "is named twice; each strategy is compared once")
		}
	}
	contenders, err := Contenders(names, b.Seeds, b.RandomSeeds, b.FirstSeed)
	var ne *NameError
	if errors.As(err, &ne) {
		return nil, wrong("Methods", "", "unknown strategy %q; use %s", ne.Name, JoinList(ne.Known, "or"))
	}
	return contenders, err
}

// Case is a compared case and where its times come from.
type Case struct {
	tuner.Case
	Source smart.Source
}

// KernelTunerCases opens Kernel Tuner caches and finds their optima; each case's prior is the
// same kernel measured on the other GPUs given. Two files of the same measurements (a cache and
// its T4 twin) are refused. Notes gets how a cache's space was made.
func KernelTunerCases(ctx context.Context, files []string, notes io.Writer) ([]Case, error) {
	var cases []Case
	var kts []*tuner.KernelTuner
	for _, f := range files {
		k, err := tuner.OpenKernelTuner(ctx, f, "")
		if err != nil {
			return nil, err
		}
		for j, o := range kts {
			if k.SameMeasurements(o) {
				return nil, fmt.Errorf("%s and %s hold the same settings and times of %s: they are one GPU's data (named %s and %s), which would count twice and be its own prior; give one of them",
					files[j], f, k.Kernel.Name, o.Device, k.Device)
			}
		}
		if k.Note != "" {
			notef(notes, "%s\n", k.Note)
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + strings.TrimSuffix(strings.TrimSuffix(filepath.Base(f), ".gz"), ".json")
		// A cache of smart's predictions (smart transfer -o) says so in its rows, and its
		// name says so as a simulated case's does.
		source := k.Rows[0].Source
		if source != smart.Imported {
			name += " (" + string(source) + ")"
		}
		c := Case{Case: tuner.Case{Name: name, Problem: k.Problem()}, Source: source}
		if c.Optimum, c.Size, err = tuner.Optimum(ctx, c.Problem); err != nil {
			if k.Incomplete != "" && errors.Is(err, dataset.ErrNotMeasured) {
				return nil, fmt.Errorf("%s: the optimum is taken over every configuration of the space: %w: %s", f, err, k.Incomplete)
			}
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		cases, kts = append(cases, c), append(kts, k)
	}
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
	return cases, nil
}

// SimulatedCase is the space of stencil st under oc on gpu, timed by the analytic model,
// with its optimum.
func SimulatedCase(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu string, cat *catalog.Catalog) (Case, error) {
	g, err := cat.Lookup(gpu)
	if err == nil {
		err = g.RunsCUDA() // the analytic model times CUDA kernels, which another vendor's GPU does not run
	}
	if err != nil {
		return Case{}, &SettingError{Field: "GPU", Err: err, Wrong: true}
	}
	vs, err := tuner.StencilVariants(ctx, st, []smart.Combination{oc}, g)
	if err != nil {
		return Case{}, err
	}
	c := Case{Case: tuner.Case{Name: fmt.Sprintf("%s %s on %s (simulated)", st.Name, oc, g.Name),
		Problem: tuner.Problem{Variants: vs, Evaluator: roofline.Evaluator{Catalog: cat}, Stencil: st, GPU: g.Name}}, Source: smart.Simulated}
	if c.Optimum, c.Size, err = tuner.Optimum(ctx, c.Problem); err != nil {
		return Case{}, err
	}
	return c, nil
}

// Standards are IterML's two standards (Cui and Feng, section 5) on every case, for random
// sampling and for IterML spending the budget in four iterations, at the shares of each space
// whose budget is at most budget (larger ones say nothing new and cost most). done is called
// after each search, and for each one skipped.
func Standards(ctx context.Context, cases []Case, ratios []float64, seeds int, firstSeed uint64, budget, parallel int, done func()) ([]tuner.Standard, error) {
	std := []tuner.Contender{
		{Name: "random", New: func() tuner.Method { return &tuner.Random{} }, Seeds: seeds, FirstSeed: firstSeed},
		{Name: "iterml", Seeds: seeds, FirstSeed: firstSeed, ForBudget: func(b int) tuner.Method {
			return &tuner.IterML{Pick: max(1, b/4), Threads: 1}
		}},
	}
	var out []tuner.Standard
	for _, c := range cases {
		rs, over := standardRatios(c, ratios, budget)
		for range 2 * seeds * len(over) {
			done()
		}
		s, err := tuner.Standards(ctx, c.Case, std, rs, parallel, done)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// standardRatios splits ratios into the shares of c's space whose searches fit the budget, and
// those over it, which Standards leaves out.
func standardRatios(c Case, ratios []float64, budget int) (fit, over []float64) {
	for _, r := range ratios {
		if r*float64(c.Size) <= float64(budget) {
			fit = append(fit, r)
		} else {
			over = append(over, r)
		}
	}
	return fit, over
}

// Run compares contenders (from Check) on the cases, then, unless interrupted, measures
// IterML's standards at b.Ratios; a contender that needs a prior where no case has one is a
// SettingError of Methods, or, of the default methods, left out with a note. progress reports
// each stage's searches, "searches" then "standards", from 0. An interrupted comparison keeps
// the rows whose every seed finished, and its error wraps context.Canceled; interrupted
// standards return nothing.
func (b TuneBench) Run(ctx context.Context, cases []Case, contenders []tuner.Contender, progress func(stage string, done, total int)) (Comparison, error) {
	var tcs []tuner.Case
	for _, c := range cases {
		tcs = append(tcs, c.Case)
	}
	if !slices.ContainsFunc(tcs, func(cs tuner.Case) bool { return cs.Prior != nil }) {
		var unprimed []string
		for _, c := range contenders {
			if c.ForCase != nil {
				unprimed = append(unprimed, c.Name)
			}
		}
		if len(unprimed) > 0 && b.Methods != nil {
			return Comparison{}, wrong("Methods", unprimed[0], "needs a prior: give the same kernel's caches of at least two GPUs (each is tuned with the others' as its prior)")
		}
		if len(unprimed) > 0 {
			notef(b.Notes, "leaving out %s: they need a prior (the same kernel's caches of at least two GPUs), which no data set here has\n", JoinList(unprimed, "and"))
			contenders = slices.DeleteFunc(slices.Clone(contenders), func(c tuner.Contender) bool { return c.ForCase != nil })
		}
	}
	total, n := tuner.Searches(tcs, contenders), 0
	progress("searches", n, total)
	reach, err := tuner.Compare(ctx, tcs, contenders, b.Budget, b.Share, b.Parallel, func() { n++; progress("searches", n, total) })
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			return Comparison{}, err
		}
		complete := slices.DeleteFunc(slices.Clone(reach), func(r tuner.Reach) bool { return !r.Complete() })
		err = fmt.Errorf("interrupted after %d of %d searches; the %d rows of %d whose seeds all finished are kept: %w",
			n, total, len(complete), len(reach), err)
		return NewComparison(b.Share, b.Budget, cases, complete), err
	}
	out := NewComparison(b.Share, b.Budget, cases, reach)
	if len(b.Ratios) > 0 {
		for _, c := range cases {
			if _, over := standardRatios(c, b.Ratios, b.Budget); len(over) > 0 {
				var shares []string
				for _, r := range over {
					shares = append(shares, fmt.Sprintf("%g%% (%.0f evaluations)", 100*r, math.Ceil(r*float64(c.Size))))
				}
				notef(b.Notes, "IterML's standards of %s leave out the %s of its %d settings: over the budget of %d evaluations\n",
					c.Name, JoinList(shares, "and"), c.Size, b.Budget)
			}
		}
		total, n = len(cases)*2*b.Seeds*len(b.Ratios), 0
		progress("standards", n, total)
		if out.Standards, err = Standards(ctx, cases, b.Ratios, b.Seeds, b.FirstSeed, b.Budget, b.Parallel, func() { n++; progress("standards", n, total) }); err != nil {
			return Comparison{}, err
		}
	}
	return out, nil
}
