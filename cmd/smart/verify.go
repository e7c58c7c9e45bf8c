package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"smart"
	"smart/app"
	"smart/internal/cliflag"
)

// verifyOpts are the flags of the command.
type verifyOpts struct {
	app.Verify
	ocList, gpuName, catFile string
	asJSON                   bool
}

func (o *verifyOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.ocList, "oc", "all", "optimization combinations: all, or a comma-separated list such as ST_BM,TB (one with --setting)")
	fs.IntVar(&o.Samples, "samples", 3, "random settings per stencil and OC")
	fs.StringVar(&o.Setting, "setting", "", "verify this one setting k=v,... of the --oc (as codegen takes it) in place of random ones")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the settings and the input data")
	fs.StringVar(&o.gpuName, "gpu", "", "GPU whose limits bound the settings, from the catalogue (smart gpus); default sm_80")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.IntVar(&o.Jobs, "jobs", 0, "batches compiled and run at once (default: the number of CPUs)")
	fs.DurationVar(&o.Timeout, "timeout", 2*time.Minute, "time a variant's CPU run may take before it counts as a hang")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
}

func runVerify(ctx context.Context, e *env, args []string) error {
	var o verifyOpts
	fs, files, err := parse(e, "verify", args, o.register)
	switch {
	case err != nil:
		return err
	case len(files) == 0:
		return usagef("give one or more stencil files")
	case o.Setting != "" && cliflag.Given(fs, "samples"):
		return usagef("--samples draws settings and --setting gives one: give either")
	}
	o.Files, o.Stdin = files, e.stdin
	var stop func()
	o.Progress, stop = lazyProgress(e, "verify")
	if o.OCs, err = smart.ParseCombinations(o.ocList); err != nil {
		return usagef("--oc: %w", err)
	}
	if err := o.Check(); err != nil {
		return settingFlag(fs, err, map[string]string{"OCs": "--oc"})
	}
	if o.GPU, err = app.LimitsGPU(o.catFile, o.gpuName); err != nil {
		return settingFlag(fs, err, nil)
	}
	report, total, verr := o.Run(ctx)
	if verr != nil {
		stop() // the bar ends where the run did
	}
	if report == nil {
		return settingFlag(fs, verr, nil)
	}
	if err := printOut(e, o.asJSON, report, report.WriteTable); err != nil {
		return err
	}
	if verr != nil {
		// Interrupted: the variants that finished are reported; say so.
		return fmt.Errorf("interrupted after %d of %d variants; the finished ones are listed above: %w", len(report.Results), total, verr)
	}
	return report.Err()
}
