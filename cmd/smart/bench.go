package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart"
	"smart/app"
	"smart/catalog"
	"smart/dataset"
	"smart/generator"
)

// benchOpts are the flags of the command that app.Bench does not hold as given.
type benchOpts struct {
	b           app.Bench
	random      int
	dims        int
	orderMax    int
	ocList      string
	catalogFile string
	shardFlag   string
	cutFactor   float64
	dryRun      bool
	asJSON      bool
	settings    repeatedFlag
}

func (o *benchOpts) register(fs *flag.FlagSet) {
	fs.IntVar(&o.random, "random", 0, "draw this many random stencils (StencilMART Algorithm 1) instead of reading files")
	fs.IntVar(&o.dims, "dims", 3, "dimensions of the random stencils, 2 or 3")
	fs.IntVar(&o.orderMax, "order-max", smart.DefaultMaxOrder, "largest order of the random stencils; orders 1 to this are drawn in turn")
	fs.Uint64Var(&o.b.Seed, "seed", 1, "seed of the random stencils and of the settings drawn")
	fs.IntVar(&o.b.Samples, "samples", 20, "settings drawn per stencil and OC")
	fs.StringVar(&o.ocList, "oc", "all", "OCs to measure, comma-separated (e.g. BASE,ST,ST_RT), or all")
	fs.StringVar(&o.b.Backend, "backend", "cuda", "cuda (measure on the GPU) or sim (the analytic model)")
	fs.StringVar(&o.b.GPU, "gpu", "", "catalogue name of the GPU (sim: default "+app.DefaultSimGPU+"; cuda: found through NVML)")
	fs.IntVar(&o.b.CUDA.Device, "device", 0, "NVML index of the GPU to measure on (cuda)")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.StringVar(&o.b.Out, "out", "", "data set directory (created, or resumed when it holds this run)")
	fs.StringVar(&o.shardFlag, "shard", "", "run only shard i of n (e.g. 2/4), split by stencil")
	fs.IntVar(&o.b.Batch, "batch", 0, "variants handed to the backend at once, where it batches (default: 32, or for cuda enough to keep every nvcc job busy)")
	fs.DurationVar(&o.b.Time, "time", 0, "stop cleanly after this long (e.g. 9m), drawing the settings included, keeping the variants measured so far; run again to resume")
	fs.IntVar(&o.b.CUDA.Reps, "reps", 5, "timed samples per variant (cuda; at least 5), after its checked run")
	fs.Float64Var(&o.cutFactor, "cut", 3, "cuda: a variant over this many times its stencil's fastest so far (and 1.1x its OC's)\nis timed by its checked run alone, or stopped after a slow first launch; 0: never")
	fs.StringVar(&o.b.CUDA.BuildDir, "build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "generate and check everything, count the work, run nothing")
	fs.BoolVar(&o.asJSON, "json", false, "print the summary as JSON")
}

func runBench(ctx context.Context, e *env, args []string) error {
	var o benchOpts
	fs := newFlags(e, "bench")
	o.register(fs)
	fs.Var(&o.settings, "setting", "measure this setting instead of random ones: k=v,... with one --oc, or OC:k=v,...; repeat for more")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	b, err := o.bench(e, fs, paths)
	if err != nil {
		return err
	}
	var drawing *progress
	b.Drawing = func(done, total int) {
		if drawing == nil {
			drawing = newProgress(e, "drawing settings", total)
		}
		drawing.Update(done)
	}
	bg, err := b.Open(ctx)
	if err != nil {
		return benchFlags(err)
	}
	defer bg.Close()
	if o.dryRun {
		r, err := bg.DryRun()
		switch {
		case err != nil:
			return err
		case o.asJSON:
			return writeJSON(e, r)
		}
		return r.WriteText(e.stdout)
	}
	bar := newProgress(e, "bench", len(bg.Items))
	sum, runErr := bg.Run(ctx, func(done, _ int) { bar.Update(done) })
	if sum.Stopped {
		bar.Stop(sum.Skipped + sum.Written)
	}
	if err := printBench(e, bg.Report(sum), o.asJSON); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("the run stopped after %d of %d variants (run the same command again to resume): %w", sum.Skipped+sum.Written, sum.Total, runErr)
	}
	return nil
}

// benchFlags names the flag of a setting app.Bench refused.
func benchFlags(err error) error {
	return settingFlag(err, map[string]string{"Out": "--out", "Samples": "--samples", "Batch": "--batch", "Cut": "--cut",
		"Time": "--time", "Backend": "--backend", "GPU": "--gpu", "Settings": "--setting", "BuildDir": "--build-dir"})
}

// bench checks the flags and reads the stencils into the benchmark they describe.
func (o *benchOpts) bench(e *env, fs *flag.FlagSet, paths []string) (app.Bench, error) {
	switch {
	case len(o.settings) > 0 && flagsGiven(fs, "samples"):
		return app.Bench{}, usagef("give --samples or --setting, not both: the settings given are measured instead of random ones")
	case o.b.Out == "":
		return app.Bench{}, usagef("--out DIR is required: the data set directory")
	}
	o.b.CUDA.Cut = cmp.Or(o.cutFactor, -1)
	if err := o.b.Check(); err != nil {
		return app.Bench{}, benchFlags(err)
	}
	shard, err := dataset.ParseShard(o.shardFlag)
	if err != nil {
		return app.Bench{}, usagef("--shard: %v", err)
	}
	ocs, err := smart.ParseCombinations(o.ocList)
	if err != nil {
		return app.Bench{}, usagef("--oc: %v", err)
	}
	var variants []dataset.Variant
	if len(o.settings) > 0 {
		if !flagsGiven(fs, "oc") {
			ocs = nil // --setting names the OC unless --oc is given
		}
		if variants, err = dataset.ParseVariants(o.settings, ocs); errors.As(err, new(*dataset.NoOCError)) {
			return app.Bench{}, usagef("--setting: %v or give one --oc", err)
		} else if err != nil {
			return app.Bench{}, usagef("--setting: %v", err)
		}
	}
	stencils, err := benchStencils(e, paths, o.random, o.dims, o.orderMax, o.b.Seed)
	if err != nil {
		return app.Bench{}, err
	}
	cat, err := catalog.Load(o.catalogFile)
	if err != nil {
		return app.Bench{}, err
	}
	if o.b.Backend == app.Sim && o.b.GPU == "" {
		o.b.GPU = app.DefaultSimGPU
		fmt.Fprintf(e.stderr, "simulating the %s; name another GPU with --gpu (smart gpus lists them)\n", app.DefaultSimGPU)
	}
	b := o.b
	b.Stencils, b.OCs, b.Settings, b.Shard, b.Catalog, b.Notes = stencils, ocs, variants, shard, cat, e.stderr
	return b, nil
}

// repeatedFlag is a flag that may be given many times; each value is kept whole (settings hold
// commas).
type repeatedFlag []string

func (r *repeatedFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatedFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// benchStencils reads the stencil files (directories: every *.json in them) or draws random ones.
func benchStencils(e *env, paths []string, random, dims, orderMax int, seed uint64) ([]*smart.Stencil, error) {
	switch {
	case random > 0 && len(paths) > 0:
		return nil, usagef("give stencil files or --random N, not both")
	case random > 0:
		if dims != 2 && dims != 3 {
			return nil, usagef("--dims is %d; use 2 or 3", dims)
		}
		sts, err := dataset.RandomStencils(random, dims, orderMax, seed)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return sts, nil
	case len(paths) == 0:
		return nil, usagef("give stencil files or directories, or --random N")
	}
	files, err := generator.LoadAll(paths, e.stdin, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, err
	}
	var sts []*smart.Stencil
	seen := map[string]string{}
	for _, f := range files {
		if prev, dup := seen[f.Stencil.ID()]; dup {
			return nil, fmt.Errorf("stencil files %s and %s hold the same stencil", prev, f.File)
		}
		seen[f.Stencil.ID()] = f.File
		sts = append(sts, f.Stencil)
	}
	return sts, nil
}

func printBench(e *env, r app.BenchReport, asJSON bool) error {
	if asJSON {
		return writeJSON(e, r)
	}
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if r.Stopped {
		fmt.Fprintf(e.stdout, "stopped by --time with %d variants left: run the same command again to resume\n", r.Variants-r.Skipped-r.Written)
	}
	return nil
}
