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
	"smart/internal/progressbar"
	"smart/tuner"
)

// tuneBenchOpts are the flags of the command that app.TuneBench does not hold as given.
type tuneBenchOpts struct {
	b          app.TuneBench
	methods    string
	ratios     string
	simStencil string
	ocName     string
	asJSON     bool
}

func (o *tuneBenchOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.methods, "methods", strings.Join(app.DefaultMethods, ","), "strategies compared, comma-separated (left out, those that need a prior where no data set has one)")
	fs.IntVar(&o.b.Seeds, "seeds", 20, "seeds per strategy and data set")
	fs.Uint64Var(&o.b.FirstSeed, "first-seed", 0, "seed of the first search (the seeds run are this to this+seeds-1): hold out the seeds a strategy's settings were chosen on")
	fs.IntVar(&o.b.RandomSeeds, "random-seeds", 100, "seeds of random sampling, which is cheap")
	fs.IntVar(&o.b.Budget, "budget", 2000, "most evaluations of one search")
	fs.Float64Var(&o.b.Share, "share", 0.95, "the goal: best <= optimum/share")
	fs.StringVar(&o.ratios, "ratios", "0.0025,0.005,0.01,0.02,0.04,0.08", "shares of the space sampled for IterML's standards, those within --budget (empty: skip them)")
	fs.StringVar(&o.simStencil, "sim", "", "also compare on this stencil's space under the analytic model")
	fs.StringVar(&o.b.SimGPU, "gpu", app.DefaultSimGPU, "GPU of the simulated stencil")
	fs.StringVar(&o.b.CatalogFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.StringVar(&o.ocName, "oc", "ST_TB", "OC of the simulated stencil")
	fs.IntVar(&o.b.Parallel, "parallel", 0, "searches run at once (0: one per CPU)")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
}

func runTuneBench(ctx context.Context, e *env, args []string) error {
	var o tuneBenchOpts
	fs, files, err := parse(e, "tune-bench", args, o.register)
	switch {
	case err != nil:
		return err
	case len(files) == 0 && o.simStencil == "":
		return usagef("give Kernel Tuner cache files, --sim STENCIL, or both")
	}
	contenders, err := o.check(e, fs, files)
	var cases []app.Case
	if err == nil {
		cases, err = o.b.Cases(ctx)
	}
	if err != nil {
		return settingFlag(fs, err, nil)
	}
	var bar *progressbar.Bar
	out, err := o.b.Run(ctx, cases, contenders, func(stage string, done, total int) {
		if bar == nil || bar.Label != stage {
			bar = newProgress(e, stage, total) // each stage starts from 0
		} else {
			bar.Update(done)
		}
	})
	switch {
	case errors.Is(err, context.Canceled) && out.Cases != nil:
		bar.Stop(bar.Done())
		err = fmt.Errorf("%w; they are printed above", err)
	case err != nil:
		return settingFlag(fs, err, nil)
	}
	return errors.Join(printOut(e, o.asJSON, out, out.WriteTables), err)
}

// check reads the flags and the simulated stencil into the comparison, and builds the compared
// strategies.
func (o *tuneBenchOpts) check(e *env, fs *flag.FlagSet, files []string) ([]tuner.Contender, error) {
	var err error
	o.b.Caches, o.b.Notes = files, e.stderr
	if cliflag.Given(fs, "methods") { // else the defaults, less those with no prior to use
		o.b.Methods = strings.Split(strings.ReplaceAll(o.methods, " ", ""), ",")
	}
	if o.b.Ratios, err = app.ParseRatios(o.ratios); err != nil {
		return nil, err
	}
	contenders, err := o.b.Check()
	if err == nil && o.simStencil != "" {
		if o.b.Sim, err = loadStencil(e, o.simStencil, smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
			return nil, err
		}
		o.b.SimOC, err = app.ParseOC(o.ocName)
	}
	return contenders, err
}
