package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"smart"
	"smart/app"
	"smart/catalog"
	"smart/tuner"
)

// tuneBenchOpts are the flags of the command that app.TuneBench does not hold as given.
type tuneBenchOpts struct {
	b          app.TuneBench
	methods    string
	ratios     string
	simStencil string
	gpuName    string
	ocName     string
	asJSON     bool
}

func (o *tuneBenchOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.methods, "methods", "random,iterml,cstuner,pipeline,bayes,pipeline-transfer,bayes-transfer", "strategies compared, comma-separated")
	fs.IntVar(&o.b.Seeds, "seeds", 20, "seeds per strategy and data set")
	fs.Uint64Var(&o.b.FirstSeed, "first-seed", 0, "seed of the first search (the seeds run are this to this+seeds-1): hold out the seeds a strategy's settings were chosen on")
	fs.IntVar(&o.b.RandomSeeds, "random-seeds", 100, "seeds of random sampling, which is cheap")
	fs.IntVar(&o.b.Budget, "budget", 2000, "most evaluations of one search")
	fs.Float64Var(&o.b.Share, "share", 0.95, "the goal: best <= optimum/share")
	fs.StringVar(&o.ratios, "ratios", "0.0025,0.005,0.01,0.02,0.04,0.08", "shares of the space sampled for IterML's standards (empty: skip them)")
	fs.StringVar(&o.simStencil, "sim", "", "also compare on this stencil's space under the analytic model")
	fs.StringVar(&o.gpuName, "gpu", app.DefaultSimGPU, "GPU of the simulated stencil")
	fs.StringVar(&o.ocName, "oc", "ST_TB", "OC of the simulated stencil")
	fs.IntVar(&o.b.Parallel, "parallel", 0, "searches run at once (0: one per CPU)")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
}

func runTuneBench(ctx context.Context, e *env, args []string) error {
	var o tuneBenchOpts
	fs := newFlags(e, "tune-bench")
	o.register(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	contenders, err := o.check(files)
	if err != nil {
		return err
	}
	cases, err := tuneBenchCases(ctx, e, files, o.simStencil, o.gpuName, o.ocName)
	if err != nil {
		return err
	}
	for _, c := range contenders {
		if c.ForCase != nil && !slices.ContainsFunc(cases, func(cs app.Case) bool { return cs.Prior != nil }) {
			return usagef("--methods %s needs a prior: give the same kernel's caches of at least two GPUs (each is tuned with the others' as its prior)", c.Name)
		}
	}
	var bar *progress
	out, err := o.b.Run(ctx, cases, contenders, func(stage string, done, total int) {
		if bar == nil || bar.label != stage {
			bar = newProgress(e, stage, total) // each stage starts from 0
		} else {
			bar.Update(done)
		}
	})
	stopped := errors.Is(err, context.Canceled) && out.Cases != nil
	switch {
	case stopped:
		bar.Stop(bar.Done())
		err = fmt.Errorf("%w; they are printed above", err)
	case err != nil:
		return err
	}
	if o.asJSON {
		return errors.Join(writeJSON(e, out), err)
	}
	return errors.Join(out.WriteTables(e.stdout), err)
}

// check reads the flags into the compared strategies and the shares of the standards.
func (o *tuneBenchOpts) check(files []string) ([]tuner.Contender, error) {
	if len(files) == 0 && o.simStencil == "" {
		return nil, usagef("give Kernel Tuner cache files, --sim STENCIL, or both")
	}
	o.b.Methods = strings.Split(strings.ReplaceAll(o.methods, " ", ""), ",")
	for _, f := range strings.FieldsFunc(o.ratios, func(r rune) bool { return r == ',' }) {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, usagef("--ratios: %q is not a share in (0, 1]", f)
		}
		o.b.Ratios = append(o.b.Ratios, v)
	}
	contenders, err := o.b.Check()
	if err != nil {
		return nil, settingFlag(err, map[string]string{"Seeds": "--seeds", "RandomSeeds": "--random-seeds", "Budget": "--budget",
			"Parallel": "--parallel", "Share": "--share", "Ratios": "--ratios", "Methods": "--methods"})
	}
	return contenders, nil
}

// tuneBenchCases opens the Kernel Tuner caches and the simulated stencil's space.
func tuneBenchCases(ctx context.Context, e *env, files []string, sim, gpuName, ocName string) ([]app.Case, error) {
	cases, err := app.KernelTunerCases(ctx, files, e.stderr)
	if err != nil || sim == "" {
		return cases, err
	}
	st, err := loadStencil(e, sim, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, err
	}
	oc, err := smart.ParseCombination(ocName)
	if err != nil {
		return nil, usagef("--oc: %v", err)
	}
	c, err := app.SimulatedCase(ctx, st, oc, gpuName, cat)
	return append(cases, c), settingFlag(err, map[string]string{"GPU": "--gpu"})
}
