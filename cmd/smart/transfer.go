package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"

	"smart/app"
	"smart/catalog"
	"smart/internal/cliflag"
	"smart/transfer"
)

// transferOpts are the flags of the command.
type transferOpts struct {
	transfer     app.TransferSettings // all but the catalogue
	budget, top  int
	out, dataSet string
	force        bool
	catFile      string
	asJSON       bool
}

func (o *transferOpts) register(fs *flag.FlagSet) {
	s := &o.transfer
	fs.Var((*cliflag.Paths)(&s.From), "from", "measurements on other GPUs, FILE or FILE@GPU (repeatable, or comma-separated)")
	fs.StringVar(&s.To, "to", "", "the GPU to predict for (catalogue name or alias)")
	fs.Var((*cliflag.Paths)(&s.Shots), "shots", "settings measured on the target: a partial cache or data set (repeatable)")
	fs.IntVar(&o.budget, "budget", -1, "print the K settings to measure first on the target, and stop")
	fs.StringVar(&s.Kernel, "kernel", "", "the kernel or stencil ID, where the files hold several (and the kernel of T4 files that name none); all predicts them together")
	fs.StringVar(&o.out, "o", "", "write the predictions as a Kernel Tuner cache (gzip-compressed where the name ends in .gz)")
	fs.StringVar(&o.dataSet, "dataset", "", "write the predictions as a new smart data set in DIR")
	fs.BoolVar(&o.force, "force", false, "overwrite the -o file even if it is not a cache smart wrote")
	fs.IntVar(&o.top, "top", 10, "settings to print, fastest first (--json holds every setting)")
	fs.Float64Var(&s.Predict.Share, "share", 0, "weight of bandwidth in the hardware ratio, in (0, 1]; 0 fits or defaults it")
	fs.Float64Var(&s.Predict.Level, "level", 0.8, "coverage of the intervals, in (0, 1)")
	fs.BoolVar(&s.Predict.FP64, "fp64", false, "compare the GPUs' double-precision FLOPS (always for float64 stencils)")
	fs.StringVar(&s.Ratio, "ratio", "", "how a time moves to the target: hardware (bandwidth and FLOPS) or analytic (the calibrated stencil model's ratio of each setting, for stencils); default: analytic for stencils between GPUs of one architecture, hardware otherwise")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
}

// transferFlags name the flag of each field of app.TransferSettings and of the writes named
// otherwise.
var transferFlags = map[string]string{"Cache": "-o"}

func runTransfer(ctx context.Context, e *env, args []string) error {
	var o transferOpts
	fs, rest, err := parse(e, "transfer", args, o.register)
	if err := cmp.Or(err, noArgs(rest, "; give the source files with --from")); err != nil {
		return err
	}
	switch {
	case o.top < 1:
		return usagef("--top %d: print at least 1 setting", o.top)
	case cliflag.Given(fs, "budget") && o.budget < 1:
		return usagef("--budget %d: ask for at least 1 setting to measure", o.budget)
	case o.budget >= 0 && (o.out != "" || o.dataSet != ""):
		return usagef("--budget lists the settings to measure first and predicts nothing, so -o and --dataset have nothing to write; leave them out, or --budget")
	}
	job, err := o.open()
	if err != nil {
		return settingFlag(fs, err, transferFlags)
	}
	for _, n := range job.Notes {
		fmt.Fprintf(e.stderr, "note: %s\n", n)
	}
	if o.budget >= 0 { // the settings to measure first on the target
		vs, err := job.ChooseShots(o.budget)
		if err != nil {
			return err
		}
		target := cmp.Or(job.Target.GPU.Name, job.Target.Name)
		return printOut(e, o.asJSON, transfer.Variants{List: vs, Params: job.CodedParams()}, func(w io.Writer) error {
			return transfer.WriteShots(w, target, vs, job.CodedParams(), transfer.StencilNames(job.Files))
		})
	}
	if err := job.CheckWrite(o.out, o.dataSet, o.force); err != nil {
		return settingFlag(fs, err, transferFlags)
	}
	p, err := job.Predict()
	if err != nil {
		return err
	}
	if err := p.WriteNotes(e.stderr); err != nil {
		return err
	}
	if o.out != "" {
		cov, err := job.CacheCoverage(ctx, p)
		if err != nil {
			return err
		}
		if note := cov.Note(); note != "" {
			fmt.Fprintf(e.stderr, "note: %s\n", note)
		}
	}
	if err := job.Write(p, o.out, o.dataSet, o.force); err != nil {
		return settingFlag(fs, err, transferFlags)
	}
	var wrote []string
	for _, f := range []string{o.out, o.dataSet} {
		if f != "" {
			wrote = append(wrote, "wrote "+f)
		}
	}
	return printOut(e, o.asJSON, p, then(func(w io.Writer) error { return p.WriteText(w, o.top) }, wrote...))
}

// open checks the flags and opens the transfer they describe.
func (o *transferOpts) open() (*app.TransferJob, error) {
	if err := o.transfer.Check(); err != nil {
		return nil, err
	}
	if o.transfer.Predict.Level == 0 { // transfer's default; the flag's is 0.8
		return nil, usagef("--level 0: give a coverage in (0, 1), e.g. 0.8")
	}
	var err error
	if o.transfer.Catalog, err = catalog.Load(o.catFile); err != nil {
		return nil, err
	}
	return app.OpenTransfer(o.transfer)
}
