package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart/app"
	"smart/internal/cliflag"
	"smart/models/train"
)

// evalOpts are the flags of the command.
type evalOpts struct {
	app.Eval
	asJSON bool
}

func (o *evalOpts) register(fs *flag.FlagSet) {
	fs.Var((*cliflag.Paths)(&o.Data), "data", "data set directory (repeat, or separate with commas)")
	fs.IntVar(&o.Folds, "cv", 0, "cross-validate with this many folds (retrains the model's kind)")
	fs.StringVar(&o.Holdout, "holdout-gpu", "", "GPU to hold out (train on the others), or all")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the cross-validation folds")
	fs.StringVar(&o.CatalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON, one line per report (JSON Lines; one per held-out GPU with --holdout-gpu all)")
}

func runEval(ctx context.Context, e *env, args []string) error {
	var o evalOpts
	fs, pos, err := parse(e, "eval", args, o.register)
	switch {
	case err != nil:
		return err
	case len(pos) != 1:
		return usagef("give one model file")
	}
	o.Model = pos[0]
	label := "leave-one-GPU-out"
	if o.Folds > 0 {
		label = fmt.Sprintf("cross-validation (%d folds)", o.Folds)
	}
	o.Progress, _ = lazyProgress(e, label)
	r, err := o.Run(ctx, e.stderr)
	var notInData *train.GPUNotInDataError
	switch {
	case errors.As(err, &notInData):
		return usagef("--holdout-gpu %s: the data holds %s; name one of them or all", notInData.GPU, strings.Join(notInData.Have, ", "))
	case errors.Is(err, app.ErrNoInputs):
		return fmt.Errorf("model %s has no record of how its rows were built; it was not trained by smart train", o.Model)
	case err != nil:
		return settingFlag(fs, err, map[string]string{"Folds": "--cv", "Holdout": "--holdout-gpu"})
	case o.asJSON:
		for _, rep := range r.Reports {
			if err := writeJSON(e, rep); err != nil {
				return err
			}
		}
		return nil
	}
	return r.WriteText(e.stdout)
}
