package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart/catalog"
	"smart/models"
	"smart/models/kinds"
	"smart/models/train"
)

// evalHelp is the description of --help, with examples.
const evalHelp = `
Scores a model on data sets, per GPU and over all rows.

Selection models: accuracy, the confusion matrix (rows: true class, columns: predicted), the
speedup of the predicted OC over the worst OC and over the single best fixed OC (geometric
means), and the share of the oracle's performance reached (mean over stencils of best time /
time of the predicted OC). Runtime models: MAPE, the distribution of absolute percentage errors
(percentiles), and how close the variant the model predicts fastest comes to the best measured
one (pick share, mean over the problems of best time / time of the pick; the problems column
counts them: the stencils on the GPU, or one for a Kernel Tuner kernel).

Without --cv or --holdout-gpu the saved model predicts the data as it is; when the data is what
it was trained on, the scores are in-sample and say so. --cv K trains the model's kind again with
its hyper-parameters on K folds grouped by stencil and scores the out-of-fold predictions.
--holdout-gpu NAME trains on every other GPU of the data and predicts NAME from its catalogue
features (leave-one-GPU-out); 'all' holds out each GPU in turn.

Examples:
  smart eval select-a100.model --data runs/a100-sim --cv 5
  smart eval rt.model --data data/measured/h100-sxm/random/j3d19pt,data/measured/h100-sxm/random/j3d125pt --json
  smart eval conv-forest.model --data runs/conv --holdout-gpu all`

// evalOpts are the flags of the command.
type evalOpts struct {
	dirs        dirList
	cv          int
	holdout     string
	seed        uint64
	catalogFile string
	asJSON      bool
}

func (o *evalOpts) register(fs *flag.FlagSet) {
	fs.IntVar(&o.cv, "cv", 0, "cross-validate with this many folds (retrains the model's kind)")
	fs.StringVar(&o.holdout, "holdout-gpu", "", "GPU to hold out (train on the others), or all")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the cross-validation folds")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON, one line per report (JSON Lines; one per held-out GPU with --holdout-gpu all)")
}

func runEval(ctx context.Context, e *env, args []string) error {
	var o evalOpts
	fs := newFlags(e, "eval", "MODEL --data DIR [--data DIR...] [--cv K | --holdout-gpu NAME|all] [--json]", evalHelp)
	o.register(fs)
	fs.Var(&o.dirs, "data", "data set directory (repeat, or separate with commas)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("give one model file")
	case len(o.dirs) == 0:
		return usagef("--data DIR is required")
	case o.cv == 1 || o.cv < 0:
		return usagef("--cv is %d; use 2 or more folds", o.cv)
	case o.cv > 0 && o.holdout != "":
		return usagef("give --cv or --holdout-gpu, not both")
	}
	m, set, err := o.load(e, pos[0])
	if err != nil {
		return err
	}
	reports, err := o.assess(ctx, e, m, set)
	if err != nil {
		return err
	}
	if o.asJSON {
		for _, r := range reports {
			if err := writeJSON(e, r); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "model %s: %s %s, trained on %s\n", pos[0], m.Header.Kind, m.Header.Task, m.Header.TrainingData())
	if o.holdout == "all" {
		return train.WriteHoldoutTable(e.stdout, reports)
	}
	for _, r := range reports {
		if err := r.WriteTables(e.stdout); err != nil {
			return err
		}
	}
	return nil
}

// load reads the model and builds the data sets' rows as it was trained on them.
func (o *evalOpts) load(e *env, path string) (*models.Model, *train.Set, error) {
	m, err := models.Load(path, kinds.All())
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Load(o.catalogFile)
	if err != nil {
		return nil, nil, err
	}
	h := m.Header
	if h.Inputs == nil {
		return nil, nil, fmt.Errorf("model %s has no record of how its rows were built; it was not trained by smart train", path)
	}
	set, err := train.Load(o.dirs, train.Options{Task: h.Task, Catalog: cat, Inputs: h.Inputs, Classes: h.Classes, Dims: h.Inputs.Dims})
	if err != nil {
		return nil, nil, err
	}
	if set.Dropped > 0 {
		fmt.Fprintf(e.stderr, "left out %d rows of stencils that are not %d-D, as the model is\n", set.Dropped, h.Inputs.Dims)
	}
	fmt.Fprintf(e.stderr, "%s\n", set.Describe())
	return m, set, nil
}

// assess scores the model with a progress bar, and says when the scores are in-sample.
func (o *evalOpts) assess(ctx context.Context, e *env, m *models.Model, set *train.Set) ([]train.Report, error) {
	label := "leave-one-GPU-out"
	if o.cv > 0 {
		label = fmt.Sprintf("cross-validation (%d folds)", o.cv)
	}
	var bar *progress
	opt := train.AssessOptions{Folds: o.cv, Seed: o.seed, Holdout: o.holdout, Progress: func(done, total int) {
		if bar == nil {
			bar = newProgress(e, label, total)
		}
		bar.Update(done)
	}}
	reports, err := train.Assess(ctx, kinds.All(), m, set, opt)
	var notInData *train.GPUNotInDataError
	if errors.As(err, &notInData) {
		return nil, usagef("--holdout-gpu %s: the data holds %s; name one of them or all", notInData.GPU, strings.Join(notInData.Have, ", "))
	}
	if err != nil {
		return nil, err
	}
	if overlap := m.Header.TrainedOn(o.dirs); o.cv == 0 && o.holdout == "" && overlap != "" {
		fmt.Fprintf(e.stderr, "note: the model was trained on %s: these scores are in-sample, not a test\n", overlap)
	}
	return reports, nil
}
