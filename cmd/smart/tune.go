package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"smart"
	"smart/app"
	"smart/catalog"
	"smart/internal/atomicfile"
	"smart/tuner"
)

// tuneOpts are the flags of the command that app.Tune does not hold as given.
type tuneOpts struct {
	t         app.Tune
	ocList    string
	asJSON    bool
	tracePath string
	emitPath  string
	force     bool
	catFile   string
}

func (o *tuneOpts) register(fs *flag.FlagSet) {
	t := &o.t
	fs.StringVar(&t.GPU, "gpu", "", "GPU name or alias from the catalogue (sim: default "+app.DefaultSimGPU+"; cuda: found through NVML)")
	fs.StringVar(&t.Strategy, "method", "pipeline", app.JoinList(app.StrategyNames(nil), "or"))
	fs.StringVar(&t.Evaluator, "evaluator", "", "cuda, sim, model:PATH or replay:PATH")
	fs.IntVar(&t.Budget.Evaluations, "budget", 200, "most evaluations, failed ones included (0: no limit)")
	fs.DurationVar(&t.Budget.Time, "time", 0, "most wall time, e.g. 10m, building the spaces included; evaluations still running then are cut off and not counted (0: no limit)")
	fs.Uint64Var(&t.Seed, "seed", 1, "seed of every random choice of the search")
	fs.StringVar(&o.ocList, "oc", "all", "OCs of a stencil to search, comma-separated, or all (cstuner takes one)")
	fs.StringVar(&t.Classifier, "classifier", "", "OC selection model (smart train --task select) that ranks the OCs (pipeline),\nor 'embedded' for smart's own (trained on simulated data)")
	fs.StringVar(&t.Prior, "surrogate", "", "sim, model:PATH or model:embedded (stencils), or transfer:CACHE[,CACHE...] (a Kernel Tuner kernel measured on other GPUs):\nranks settings without real runs; the pipeline prunes on it and hedges on its fastest, bayes runs its fastest first; both learn from it as a feature")
	fs.IntVar(&t.Options.Variants, "variants", 2, "ranked OCs the pipeline searches")
	fs.StringVar((*string)(&t.Options.Model), "model", "forest", "IterML's in-loop model: forest, cart, knn, mlp or trees")
	fs.Float64Var(&t.Options.PickRatio, "pick-ratio", 0.01, "share of the space IterML samples per iteration")
	fs.Float64Var(&t.Options.CutRatio, "cut-ratio", 0.5, "share of the remaining space IterML drops per iteration")
	fs.IntVar(&t.Options.Initial, "initial", 0, "random settings csTuner measures first, and descent draws before each descent\n(0: the method's own, 128 and 64)")
	fs.IntVar(&t.Options.Batch, "batch", 0, "settings random and bayes run per round (0: the method's own, 1 and 2);\non the cuda evaluator a round's settings compile in parallel")
	fs.BoolVar(&o.asJSON, "json", false, "print the result as one JSON object")
	fs.StringVar(&o.tracePath, "trace", "", "write the trace (best time after each evaluation) to this CSV file")
	fs.StringVar(&o.emitPath, "emit", "", "write the CUDA source of the best stencil setting to this file")
	fs.BoolVar(&o.force, "force", false, "overwrite the --trace and --emit files even if smart did not write them")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.IntVar(&t.CUDA.Reps, "reps", 5, "timed runs per variant (cuda)")
	fs.IntVar(&t.CUDA.Device, "device", 0, "NVML index of the GPU (cuda)")
	fs.StringVar(&t.CUDA.BuildDir, "build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	fs.StringVar(&t.Record, "record", "", "data set directory every evaluation of a stencil is appended to (cuda and sim; created,\nor resumed: the settings it holds are answered from it, not run again)")
}

func runTune(ctx context.Context, e *env, args []string) error {
	var o tuneOpts
	fs := newFlags(e, "tune")
	o.register(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	t, err := o.tune(e, files)
	if err != nil {
		return err
	}
	tg, err := t.Open(ctx)
	if err != nil {
		return tuneFlags(err)
	}
	defer tg.Close()
	if err := checkTuneRun(e, tg, o.tracePath, o.emitPath, o.force); err != nil {
		return err
	}
	return o.search(ctx, e, tg)
}

// tune checks the flags and reads the stencil file into the tuning they describe.
func (o *tuneOpts) tune(e *env, files []string) (app.Tune, error) {
	switch {
	case len(files) > 1:
		return app.Tune{}, usagef("give at most one stencil file")
	case o.t.Evaluator == "":
		return app.Tune{}, usagef("give the evaluator with --evaluator: cuda, sim, model:PATH or replay:PATH")
	}
	name, err := app.ParseEvaluator(o.t.Evaluator)
	if err != nil {
		return app.Tune{}, evaluatorUsage(err)
	}
	// The settings before any file is opened, so that a misspelt method costs nothing.
	if err := o.t.Check(); err != nil {
		return app.Tune{}, tuneFlags(err)
	}
	switch {
	case o.t.Record != "" && len(files) == 0:
		return app.Tune{}, usagef("--record keeps the runs of a stencil; give a stencil file")
	case len(files) == 0 && name.Kind != app.Replay:
		return app.Tune{}, usagef("give a stencil file, or tune a Kernel Tuner cache with --evaluator replay:CACHE")
	}
	t := o.t
	if t.Catalog, err = catalog.Load(o.catFile); err != nil {
		return app.Tune{}, err
	}
	t.Notes = e.stderr
	if len(files) > 0 {
		t.Stencil, t.OCs, err = tuneStencil(e, files[0], o.ocList, name.Kind, &t.GPU)
	}
	return t, err
}

// search runs the opened tuning with a progress bar and reports it.
func (o *tuneOpts) search(ctx context.Context, e *env, tg *app.Tuning) error {
	if err := tg.Prepare(ctx); err != nil {
		return tuneFlags(err)
	}
	bar := newProgress(e, "tune", tg.Total())
	tg.SetProgress(func(n, _ int) { bar.Update(n) })
	res, err := tg.Search(ctx)
	if res.Evaluations < tg.Total() {
		bar.Stop(res.Evaluations) // the search ended before the budget
	}
	if err != nil && tg.Recording() {
		err = fmt.Errorf("%w; the evaluations are kept in %s: run the same command again to go on", err, o.t.Record)
	}
	interrupted := errors.Is(err, context.Canceled) && res.Evaluations > 0
	if err != nil && !interrupted {
		return fmt.Errorf("after %d evaluations: %w", res.Evaluations, err)
	}
	return tuneResult(e, tg, res, err, o.asJSON, o.tracePath, o.emitPath, o.t.Budget.Time)
}

// tuneResult prints the result, then writes the trace and the kernel: a file that cannot be
// written must not take the search with it. An interrupted search (err) still prints and writes
// the best it found.
func tuneResult(e *env, tg *app.Tuning, res tuner.Result, err error, asJSON bool, tracePath, emitPath string, timeLimit time.Duration) error {
	if err := printTune(e, tg.Report(res), asJSON); err != nil {
		return err
	}
	if tracePath != "" {
		if err := atomicfile.Write(tracePath, app.TraceCSV(tg.Problem, res)); err != nil {
			return err
		}
	}
	// A search that found nothing failed, whatever it printed: a script must not take the
	// empty result for a tuned kernel.
	if res.Best.Setting == nil {
		if err != nil {
			return fmt.Errorf("interrupted after %d evaluations, none of which ran successfully: %w", res.Evaluations, err)
		}
		return noneRan(res, timeLimit)
	}
	if emitPath != "" {
		if err := app.EmitBest(emitPath, tg.Problem, res); err != nil {
			return err
		}
	}
	if err != nil {
		return fmt.Errorf("interrupted after %d evaluations; the best so far is printed above: %w", res.Evaluations, err)
	}
	return nil
}

// tuneStencil reads the stencil file and --oc, and names the simulated GPU where none is.
func tuneStencil(e *env, file, ocList, kind string, gpu *string) (*smart.Stencil, []smart.Combination, error) {
	st, err := loadStencil(e, file, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, nil, err
	}
	ocs, err := smart.ParseCombinations(ocList)
	if err != nil {
		return nil, nil, usagef("--oc: %v", err)
	}
	if *gpu == "" && kind != app.CUDA {
		*gpu = app.DefaultSimGPU
		fmt.Fprintf(e.stderr, "tuning for the %s; name another GPU with --gpu (smart gpus lists them)\n", app.DefaultSimGPU)
	}
	return st, ocs, nil
}

// checkTuneRun refuses, before the search, what the opened problem cannot write, and says which
// OCs the pipeline searches.
func checkTuneRun(e *env, tg *app.Tuning, tracePath, emitPath string, force bool) error {
	if n := len(tg.Problem.Variants); tg.Searched < n {
		how := "in the order given; rank them with --classifier embedded or MODEL, or choose them with --oc"
		if tg.Ranker != "" {
			how = "ranked by " + tg.Ranker
		}
		fmt.Fprintf(e.stderr, "the pipeline searches %s, the first %d of the %d OCs %s\n",
			strings.Join(tg.OCs()[:tg.Searched], ","), tg.Searched, n, how)
	}
	if emitPath != "" && tg.Problem.Stencil == nil {
		return usagef("--emit writes generated stencil kernels; a Kernel Tuner kernel's source is its own")
	}
	for _, out := range []struct {
		flag, path string
		kind       outputKind
	}{{"--trace", tracePath, startingWith("a trace", app.TraceHeader)}, {"--emit", emitPath, cudaSource()}} {
		if out.path != "" {
			if err := checkOutput(out.flag, out.path, force, out.kind); err != nil {
				return err
			}
		}
	}
	return nil
}

// tuneFlags names the flag of a setting app.Tune refused.
func tuneFlags(err error) error {
	return settingFlag(err, map[string]string{"GPU": "--gpu", "Evaluator": "--evaluator", "Prior": "--surrogate",
		"Classifier": "--classifier", "Record": "--record", "BuildDir": "--build-dir", "Budget": "--budget", "Time": "--time",
		"Strategy": "--method", "Batch": "--batch", "Model": "--model", "PickRatio": "--pick-ratio", "CutRatio": "--cut-ratio",
		"Initial": "--initial", "Variants": "--variants", "OCs": "--oc"})
}

// evaluatorUsage says in the words of --evaluator what is wrong with its name.
func evaluatorUsage(err error) error {
	var ne *app.NameError
	switch {
	case errors.As(err, &ne) && ne.NoPath:
		kind := strings.TrimSuffix(ne.Name, ":")
		return usagef("--evaluator %s: give the path, e.g. %s:FILE", kind, kind)
	case errors.As(err, &ne):
		kind, _, _ := strings.Cut(ne.Name, ":")
		return usagef("--evaluator %q: use cuda, sim, model:PATH or replay:PATH", kind)
	}
	return err
}

// noneRan is the error of a search that ended without a successful evaluation: why none
// finished, or what the first failure was.
func noneRan(res tuner.Result, timeLimit time.Duration) error {
	if res.Evaluations == 0 {
		if res.Stop == tuner.StopTime {
			return fmt.Errorf("%s: the --time limit of %s ran out before any evaluation finished; give it more time", res.Method, timeLimit)
		}
		return fmt.Errorf("%s: the search ended (%s) before any evaluation finished", res.Method, res.Stop)
	}
	f := res.Failures[0].Measurement
	why := string(f.Status)
	if f.Error != "" {
		why += ": " + f.Error
	}
	return fmt.Errorf("%s: no setting ran successfully in %d evaluations (stopped: %s); the first failure: %s", res.Method, res.Evaluations, res.Stop, why)
}

func printTune(e *env, r app.TuneReport, asJSON bool) error {
	if asJSON {
		return writeJSON(e, r)
	}
	return r.WriteText(e.stdout)
}
