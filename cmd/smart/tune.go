package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart"
	"smart/app"
	"smart/internal/cliflag"
	"smart/tuner"
)

// tuneOpts are the flags of the command that app.Tune does not hold as given.
type tuneOpts struct {
	t      app.Tune
	ocList string
	asJSON bool
}

func (o *tuneOpts) register(fs *flag.FlagSet) {
	t := &o.t
	fs.StringVar(&t.GPU, "gpu", "", "GPU name or alias from the catalogue (sim: default "+app.DefaultSimGPU+"; cuda: found through NVML;\nreplay: the data set's; a Kernel Tuner file's device where it names none)")
	fs.StringVar(&t.Strategy, "method", "pipeline", app.JoinList(app.StrategyNames(nil), "or"))
	fs.StringVar(&t.Evaluator, "evaluator", "", "cuda, sim (sim:calibrated, sim:FILE), model:PATH or replay:PATH")
	fs.IntVar(&t.Budget.Evaluations, "budget", 200, "most evaluations, failed ones included (0: no limit)")
	fs.DurationVar(&t.Budget.Time, "time", 0, "most wall time, e.g. 10m, building the spaces included; evaluations still running then are cut off and not counted (0: no limit)")
	fs.Uint64Var(&t.Seed, "seed", 1, "seed of every random choice of the search")
	fs.StringVar(&o.ocList, "oc", "all", "OCs of a stencil to search, comma-separated, or all (cstuner takes one)")
	fs.StringVar(&t.Classifier, "classifier", "", "OC selection model (smart train --task select) that ranks the OCs (pipeline),\nor 'embedded' for smart's own (trained on simulated data)")
	fs.StringVar(&t.Prior, "surrogate", "", "sim (sim:calibrated, sim:FILE), model:PATH or model:embedded (stencils), or transfer:CACHE[,CACHE...] (a Kernel Tuner kernel measured on other GPUs,\nCACHE@GPU where the file names no device; their times' geometric mean): ranks settings without real runs; the pipeline prunes on it and hedges on its fastest, bayes runs its fastest first; both learn from it as a feature")
	fs.IntVar(&t.Options.Variants, "variants", 2, "ranked OCs the pipeline searches")
	fs.StringVar((*string)(&t.Options.Model), "model", "forest", "IterML's in-loop model: forest, cart, knn, mlp or trees")
	fs.Float64Var(&t.Options.PickRatio, "pick-ratio", 0.01, "share of the space IterML samples per iteration")
	fs.Float64Var(&t.Options.CutRatio, "cut-ratio", 0.5, "share of the remaining space IterML drops per iteration")
	fs.IntVar(&t.Options.Initial, "initial", 0, "random settings csTuner measures first, and descent draws before each descent\n(0: the method's own, 128 and 64)")
	fs.IntVar(&t.Options.Batch, "batch", 0, "settings random and bayes run per round (0: the method's own, 1 and 2);\non the cuda evaluator a round's settings compile in parallel")
	fs.BoolVar(&o.asJSON, "json", false, "print the result as one JSON object")
	fs.StringVar(&t.Trace, "trace", "", "write the trace (best time after each evaluation) to this CSV file")
	fs.StringVar(&t.Emit, "emit", "", "write the CUDA source of the best stencil setting to this file")
	fs.BoolVar(&t.Replace, "force", false, "overwrite the --trace and --emit files even if smart did not write them")
	fs.StringVar(&t.CatalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	registerCUDA(fs, &t.CUDA, "timed runs per variant (cuda)", "")
	fs.StringVar(&t.Record, "record", "", "data set directory every evaluation of a stencil is appended to (cuda and sim; created,\nor resumed: the settings it holds are answered from it, not run again)")
}

func runTune(ctx context.Context, e *env, args []string) error {
	var o tuneOpts
	fs, files, err := parse(e, "tune", args, o.register)
	switch {
	case err != nil:
		return err
	case len(files) > 1:
		return usagef("give at most one stencil file")
	}
	// The settings before any file is opened, so that a misspelt method costs nothing.
	if err := o.t.Check(); err != nil {
		return tuneFlags(fs, err)
	}
	if err := unreadOptions(fs, o.t.Strategy); err != nil {
		return err
	}
	t := &o.t
	if len(files) == 1 {
		if t.Stencil, err = loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
			return err
		}
		t.StencilFile = files[0]
	}
	if len(files) == 1 || cliflag.Given(fs, "oc") { // given without a stencil, Open refuses it
		if t.OCs, err = smart.ParseCombinations(o.ocList); err != nil {
			return usagef("--oc: %w", err)
		}
	}
	// cuda finds its GPU, and a replay takes its data's.
	if name, _ := app.ParseEvaluator(t.Evaluator); t.Stencil != nil && name.Kind != app.CUDA && name.Kind != app.Replay { // Check parsed it
		defaultSimGPU(e, &t.GPU, "tuning for")
	}
	t.Notes = e.stderr
	tg, err := t.Open(ctx)
	if err != nil {
		return tuneFlags(fs, err)
	}
	defer tg.Close()
	return o.search(ctx, e, fs, tg)
}

// search runs the opened tuning with a progress bar and reports it.
func (o *tuneOpts) search(ctx context.Context, e *env, fs *flag.FlagSet, tg *app.Tuning) error {
	if err := tg.Prepare(ctx); err != nil {
		return tuneFlags(fs, err)
	}
	bar := newProgress(e, "tune", tg.Total())
	tg.SetProgress(func(n, _ int) { bar.Update(n) })
	res, err := tg.Search(ctx)
	if res.Evaluations < tg.Total() {
		bar.Stop(res.Evaluations) // the search ended before the budget
	}
	report := func(r app.TuneReport) error { return printOut(e, o.asJSON, r, r.WriteText) }
	done := tg.Finish(res, err, report)
	switch {
	case err == nil:
		return tuneFlags(fs, done) // the --time that ran out first
	case tg.Recording():
		return fmt.Errorf("%w; the evaluations are kept in %s: run the same command again to go on", done, o.t.Record)
	}
	return done
}

// tuneFlags names the flag of a setting app.Tune refused, and the flag that picks a data set's
// device where none was named.
func tuneFlags(fs *flag.FlagSet, err error) error {
	if de := (*tuner.DeviceError)(nil); errors.As(err, &de) && de.Device == "" {
		return usagef("%w with --gpu", err)
	}
	return settingFlag(fs, err, map[string]string{"Prior": "--surrogate", "Strategy": "--method", "OCs": "--oc"})
}

// optionFlags are the flags that set a strategy's options (--batch and --surrogate, which
// app.Tune checks, aside).
var optionFlags = []struct {
	flag   string
	option tuner.Option
}{{"model", tuner.OptionModel}, {"pick-ratio", tuner.OptionPickRatio}, {"cut-ratio", tuner.OptionCutRatio},
	{"initial", tuner.OptionInitial}, {"variants", tuner.OptionVariants}}

// unreadOptions refuses a flag given for an option the method does not read: it would change
// nothing, where the user meant it to.
func unreadOptions(fs *flag.FlagSet, method string) error {
	s, ok := tuner.LookupStrategy(method)
	if !ok {
		return nil // Check named the methods
	}
	for _, f := range optionFlags {
		if cliflag.Given(fs, f.flag) && !s.Reads(f.option) {
			readers, verb := app.StrategiesReading(f.option), "do"
			if !strings.Contains(readers, " and ") {
				verb = "does"
			}
			return usagef("--%s: %s does not read it (%s %s)", f.flag, method, readers, verb)
		}
	}
	return nil
}
