package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"smart"
	"smart/app"
	"smart/campaign"
	"smart/dataset"
	"smart/internal/cliflag"
)

// benchOpts are the flags of the command that app.Bench does not hold as given.
type benchOpts struct {
	b         app.Bench
	ocList    string
	shardFlag string
	dryRun    bool
	asJSON    bool
	settings  []string // each --setting whole (settings hold commas)
}

func (o *benchOpts) register(fs *flag.FlagSet) {
	fs.IntVar(&o.b.Random, "random", 0, "draw this many random stencils (StencilMART Algorithm 1) instead of reading files")
	fs.IntVar(&o.b.Dims, "dims", 3, "dimensions of the random stencils, 2 or 3")
	fs.IntVar(&o.b.MaxOrder, "order-max", smart.DefaultMaxOrder, "largest order of the random stencils; orders 1 to this are drawn in turn")
	fs.Uint64Var(&o.b.Seed, "seed", 1, "seed of the random stencils and of the settings drawn")
	fs.IntVar(&o.b.Samples, "samples", 20, "settings drawn per stencil and OC")
	fs.StringVar(&o.ocList, "oc", "all", "OCs to measure, comma-separated (e.g. BASE,ST,ST_RT), or all")
	fs.StringVar(&o.b.Backend, "backend", "cuda", "cuda (measure on the GPU), or sim, sim:calibrated or sim:FILE (the analytic model with the literature's, the embedded calibration's or a calibration file's constants)")
	fs.StringVar(&o.b.GPU, "gpu", "", "catalogue name of the GPU (sim: default "+app.DefaultSimGPU+"; cuda: found through NVML)")
	fs.StringVar(&o.b.CatalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.StringVar(&o.b.Out, "out", "", "data set directory (created, or resumed when it holds this run)")
	fs.StringVar(&o.shardFlag, "shard", "", "run only shard i of n (e.g. 2/4), split by stencil")
	fs.IntVar(&o.b.Batch, "batch", 0, "variants handed to the backend at once, where it batches (default: 32, or for cuda enough to keep every nvcc job busy)")
	fs.DurationVar(&o.b.Time, "time", 0, "stop cleanly after this long (1s or more, e.g. 9m), keeping the variants measured so far; run again to resume.\nDrawing the settings counts, and once begun finishes (saved for the next call) however long it takes")
	registerCUDA(fs, &o.b.CUDA, "timed samples per variant (cuda; at least 5), after its checked run",
		"cuda: a variant over this many times its stencil's fastest so far (and 1.1x its OC's)\nis timed by its checked run alone, or stopped after a slow first launch; 0: never")
	fs.BoolVar(&o.dryRun, "dry-run", false, "generate and check everything, count the work, run nothing")
	fs.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
	fs.Func("setting", "measure this setting instead of random ones: k=v,... with one --oc, or OC:k=v,...; repeat for more",
		func(v string) error { o.settings = append(o.settings, v); return nil })
}

func runBench(ctx context.Context, e *env, args []string) error {
	var o benchOpts
	fs, paths, err := parse(e, "bench", args, o.register)
	switch {
	case err != nil:
		return err
	case len(o.settings) > 0 && cliflag.Given(fs, "samples"):
		return usagef("give --samples or --setting, not both: the settings given are measured instead of random ones")
	case len(paths) == 0 && o.b.Random <= 0:
		return usagef("give stencil files or directories, or --random N")
	}
	if err := cutNever(&o.b.CUDA); err != nil {
		return err
	}
	o.b.Files, o.b.Stdin = paths, e.stdin
	if err := o.b.Check(); err != nil {
		return benchFlags(fs, err)
	}
	if err := o.parseLists(fs); err != nil {
		return err
	}
	if o.b.Backend == app.Sim {
		defaultSimGPU(e, &o.b.GPU, "simulating")
	}
	o.b.Notes = e.stderr
	o.b.Drawing, _ = lazyProgress(e, "drawing settings")
	bg, err := o.b.Open(ctx)
	if err != nil {
		return benchFlags(fs, err)
	}
	defer bg.Close()
	if o.dryRun {
		r, err := bg.DryRun()
		if err != nil {
			return err
		}
		return printOut(e, o.asJSON, r, r.WriteText)
	}
	bar := newProgress(e, "bench", len(bg.Items))
	sum, runErr := bg.Run(ctx, resumedProgress(bar))
	if sum.Stopped {
		bar.Stop(sum.Skipped + sum.Written)
	}
	if se := (*app.SettingError)(nil); errors.As(runErr, &se) && se.Field == "Out" {
		return benchFlags(fs, runErr) // the data set did not open: nothing ran, nothing to resume
	}
	tooShort := errors.Is(runErr, campaign.ErrTooShort) // running it again would not resume
	switch {
	case tooShort:
		runErr = benchFlags(fs, runErr)
	case runErr != nil:
		runErr = fmt.Errorf("the run stopped after %d of %d variants (run the same command again to resume): %w", sum.Skipped+sum.Written, sum.Total, runErr)
	}
	r := bg.Report(sum)
	if !tooShort {
		r.StoppedBy(runErr)
	}
	return errors.Join(printBench(e, r, o.asJSON, tooShort), runErr)
}

// cutNever refuses a negative --cut, whose never is 0, and makes 0 app.CUDAOptions' never (-1):
// bench and campaign run share the flag (registerCUDA).
func cutNever(c *app.CUDAOptions) error {
	if c.Cut < 0 {
		return usagef("--cut %v: cut at a factor of at least 1.5, such as 3, or give 0 for never", c.Cut)
	}
	c.Cut = cmp.Or(c.Cut, -1)
	return nil
}

// benchFlags names the flag of a setting app.Bench refused.
func benchFlags(fs *flag.FlagSet, err error) error {
	return settingFlag(fs, err, map[string]string{"Settings": "--setting", "MaxOrder": "--order-max", "Evaluator": "--backend"})
}

// parseLists reads --shard, --oc and --setting into the benchmark.
func (o *benchOpts) parseLists(fs *flag.FlagSet) error {
	var err error
	if o.b.Shard, err = dataset.ParseShard(o.shardFlag); err != nil {
		return usagef("--shard: %w", err)
	}
	if o.b.OCs, err = smart.ParseCombinations(o.ocList); err != nil {
		return usagef("--oc: %w", err)
	}
	if len(o.settings) > 0 && !cliflag.Given(fs, "oc") {
		o.b.OCs = nil // --setting names the OC unless --oc is given
	}
	o.b.Settings, err = dataset.ParseVariants(o.settings, o.b.OCs)
	if errors.As(err, new(*dataset.NoOCError)) {
		return usagef("--setting: %w or give one --oc", err)
	} else if err != nil {
		return usagef("--setting: %w", err)
	}
	return nil
}

// printBench prints the report of a run; tooShort is a run whose --time ran out before it
// measured or drew anything, which is not told to run again.
func printBench(e *env, r app.BenchReport, asJSON, tooShort bool) error {
	stopped := ""
	if r.Stopped && !tooShort && r.Error == "" {
		stopped = fmt.Sprintf("stopped by --time with %d variants left: run the same command again to resume", r.Variants-r.Skipped-r.Written)
		if r.Written == 0 && r.DrawingSeconds > 0 {
			stopped += fmt.Sprintf(" (drawing the settings took %s of it; they are saved, so the next call measures from the start)", time.Duration(r.DrawingSeconds*float64(time.Second)).Round(time.Second))
		}
	}
	return printOut(e, asJSON, r, then(r.WriteText, stopped))
}
