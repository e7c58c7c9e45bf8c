package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart/app"
	"smart/models"
	"smart/models/train"
)

// evalOpts are the flags of the command.
type evalOpts struct {
	app.Eval
	asJSON bool
}

func (o *evalOpts) register(fs *flag.FlagSet) {
	fs.Var((*dirList)(&o.Data), "data", "data set directory (repeat, or separate with commas)")
	fs.IntVar(&o.Folds, "cv", 0, "cross-validate with this many folds (retrains the model's kind)")
	fs.StringVar(&o.Holdout, "holdout-gpu", "", "GPU to hold out (train on the others), or all")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the cross-validation folds")
	fs.StringVar(&o.CatalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON, one line per report (JSON Lines; one per held-out GPU with --holdout-gpu all)")
}

func runEval(ctx context.Context, e *env, args []string) error {
	var o evalOpts
	_, pos, err := parse(e, "eval", args, o.register)
	switch {
	case err != nil:
		return err
	case len(pos) != 1:
		return usagef("give one model file")
	case len(o.Data) == 0:
		return usagef("--data DIR is required")
	case o.Folds == 1 || o.Folds < 0:
		return usagef("--cv is %d; use 2 or more folds", o.Folds)
	case o.Folds > 0 && o.Holdout != "":
		return usagef("give --cv or --holdout-gpu, not both")
	}
	o.Model = pos[0]
	m, reports, err := o.assess(ctx, e)
	switch {
	case err != nil:
		return err
	case o.asJSON:
		for _, r := range reports {
			if err := writeJSON(e, r); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "model %s: %s %s, trained on %s\n", pos[0], m.Header.Kind, m.Header.Task, m.Header.TrainingData())
	if o.Holdout == "all" {
		return train.WriteHoldoutTable(e.stdout, reports)
	}
	for _, r := range reports {
		if err := r.WriteTables(e.stdout); err != nil {
			return err
		}
	}
	return nil
}

// assess scores the model with a progress bar.
func (o *evalOpts) assess(ctx context.Context, e *env) (*models.Model, []train.Report, error) {
	label := "leave-one-GPU-out"
	if o.Folds > 0 {
		label = fmt.Sprintf("cross-validation (%d folds)", o.Folds)
	}
	o.Progress = lazyProgress(e, label)
	m, reports, err := o.Run(ctx, e.stderr)
	var notInData *train.GPUNotInDataError
	switch {
	case errors.As(err, &notInData):
		return nil, nil, usagef("--holdout-gpu %s: the data holds %s; name one of them or all", notInData.GPU, strings.Join(notInData.Have, ", "))
	case errors.Is(err, app.ErrNoInputs):
		return nil, nil, fmt.Errorf("model %s has no record of how its rows were built; it was not trained by smart train", o.Model)
	}
	return m, reports, err
}
