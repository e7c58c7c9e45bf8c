package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"smart/app"
	"smart/catalog"
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
	fs.Var((*dirList)(&s.From), "from", "measurements on other GPUs, FILE or FILE@GPU (repeatable, or comma-separated)")
	fs.StringVar(&s.To, "to", "", "the GPU to predict for (catalogue name or alias)")
	fs.Var((*dirList)(&s.Shots), "shots", "settings measured on the target: a partial cache or data set (repeatable)")
	fs.IntVar(&o.budget, "budget", -1, "print the K settings to measure first on the target, and stop")
	fs.StringVar(&s.Kernel, "kernel", "", "the kernel or stencil ID, where the files hold several; all predicts them together")
	fs.StringVar(&o.out, "o", "", "write the predictions as a Kernel Tuner cache")
	fs.StringVar(&o.dataSet, "dataset", "", "write the predictions as a new smart data set in DIR")
	fs.BoolVar(&o.force, "force", false, "replace -o where it exists")
	fs.IntVar(&o.top, "top", 10, "settings to print, fastest first")
	fs.Float64Var(&s.Predict.Share, "share", 0, "weight of bandwidth in the hardware ratio, in (0, 1]; 0 fits or defaults it")
	fs.Float64Var(&s.Predict.Level, "level", 0.8, "coverage of the intervals, in (0, 1)")
	fs.BoolVar(&s.Predict.FP64, "fp64", false, "compare the GPUs' double-precision FLOPS (always for float64 stencils)")
	fs.StringVar(&s.Ratio, "ratio", "", "how a time moves to the target: hardware (bandwidth and FLOPS) or analytic (the calibrated stencil model's ratio of each setting, for stencils)")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
}

// transferFlags name the flag of each field of app.TransferSettings and of the writes.
var transferFlags = map[string]string{"From": "--from", "To": "--to", "Shots": "--shots", "Kernel": "--kernel",
	"Ratio": "--ratio", "Cache": "-o", "Level": "--level", "Share": "--share"}

func runTransfer(ctx context.Context, e *env, args []string) error {
	var o transferOpts
	_, rest, err := parse(e, "transfer", args, o.register)
	if err != nil {
		return err
	}
	job, err := o.open(rest)
	if err != nil {
		return settingFlag(err, transferFlags)
	}
	if o.budget >= 0 { // the settings to measure first on the target
		vs, err := job.ChooseShots(o.budget)
		if err != nil {
			return err
		}
		target := cmp.Or(job.Target.GPU.Name, job.Target.Name)
		return printOut(e, o.asJSON, vs, func(w io.Writer) error { return transfer.WriteShots(w, target, vs) })
	}
	p, err := job.Predict()
	if errors.Is(err, transfer.ErrNoLevel) {
		return fmt.Errorf("%w: describe %s in a --catalog file, or give settings measured on it with --shots", err, o.transfer.To)
	}
	if err != nil {
		return err
	}
	switch err := job.Write(p, o.out, o.dataSet, o.force); {
	case errors.Is(err, transfer.ErrExists):
		return fmt.Errorf("%w; nothing was written: give another -o or --force", settingFlag(err, transferFlags))
	case err != nil:
		return settingFlag(err, transferFlags)
	}
	return printOut(e, o.asJSON, p, func(w io.Writer) error {
		err := p.WriteText(w, o.top)
		for _, f := range []string{o.out, o.dataSet} {
			if f != "" && err == nil {
				_, err = fmt.Fprintf(w, "wrote %s\n", f)
			}
		}
		return err
	})
}

// open checks the flags and opens the transfer they describe.
func (o *transferOpts) open(rest []string) (*app.TransferJob, error) {
	if len(rest) > 0 {
		return nil, usagef("unexpected argument %q; give the source files with --from", rest[0])
	}
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
