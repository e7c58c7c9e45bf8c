package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"

	"smart/app"
	"smart/catalog"
	"smart/internal/cliflag"
	"smart/internal/progressbar"
	"smart/models"
	"smart/models/kinds"
)

// trainOpts are the flags of the command.
type trainOpts struct {
	app.Train
	taskName    string
	paramText   string
	catalogFile string
	asJSON      bool
}

func (o *trainOpts) register(fs *flag.FlagSet, all models.Kinds) {
	fs.Var((*cliflag.Paths)(&o.Data), "data", "data set directory (repeat, or separate with commas)")
	fs.StringVar(&o.Out, "o", "", "model file to write (gzip-compressed when it ends in .gz)")
	fs.StringVar(&o.Out, "out", "", "model file to write (same as -o)")
	fs.StringVar(&o.taskName, "task", "", "select (best OC class) or runtime (time per step)")
	fs.StringVar(&o.Kind, "model", "gbdt", "model kind: "+strings.Join(all.Names(), ", "))
	fs.BoolVar(&o.Replace, "force", false, "overwrite the -o file even if it is not a model file")
	fs.StringVar(&o.paramText, "param", "", "hyper-parameters, name=value,... (see above)")
	fs.IntVar(&o.CV, "cv", 5, "cross-validation folds before the final fit; 0 skips it")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the cross-validation folds")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.NoAnalytic, "no-analytic", false, "leave the analytic model's time out of the columns")
	fs.StringVar(&o.Target, "target", models.TargetLnMs, "what a runtime model learns: "+models.TargetLnMs+", or "+models.TargetLnOverAnalytic+" (the time over the\nanalytic model's, for rows that carry it: measured stencils, the convolution)")
	fs.IntVar(&o.Dims, "dims", 0, "keep only the stencils of this many dimensions, 2 or 3 (a stencil model is of one;\ndata sets of both, e.g. from smart bench j3d7pt j2d5pt, need a model for each)")
	fs.BoolVar(&o.asJSON, "json", false, "print the cross-validation report and model summary as JSON")
}

func runTrain(ctx context.Context, e *env, args []string) error {
	all := kinds.All()
	var o trainOpts
	fs, rest, err := parse(e, "train", args, func(fs *flag.FlagSet) { o.register(fs, all) }, "{kinds}", strings.Join(all.Names(), ", "))
	if err != nil {
		return err
	}
	t, err := o.train(fs, rest, all)
	if err != nil {
		return err
	}
	set, err := t.Load(ctx)
	switch {
	case err != nil:
		return settingFlag(fs, err, map[string]string{"Kind": "--model"})
	case set.Dropped > 0:
		fmt.Fprintf(e.stderr, "left out %d rows of stencils that are not %d-D (--dims)\n", set.Dropped, o.Dims)
	}
	fmt.Fprintf(e.stderr, "%s\n", set.Describe())
	var fitted func()
	t.CrossValidation, t.Round, fitted = trainProgress(e, o.Kind, o.CV)
	trained, err := t.Fit(ctx, set)
	fitted()
	if err != nil {
		return paramUsage(err)
	}
	result := t.Report(set, trained)
	return printOut(e, o.asJSON, result, result.WriteText)
}

// train checks the flags into the training they describe, and -o before the training.
func (o *trainOpts) train(fs *flag.FlagSet, rest []string, all models.Kinds) (app.Train, error) {
	switch {
	case len(rest) > 0:
		return app.Train{}, noArgs(rest, "; give data sets with --data")
	case o.Out == "" && len(o.Data) > 0:
		return app.Train{}, usagef("-o MODEL is required: the model file to write")
	case cliflag.Given(fs, "o") && cliflag.Given(fs, "out"):
		return app.Train{}, usagef("-o and --out both name the model file; give one")
	}
	if err := o.Check(); err != nil { // -o before the training, not after it
		return app.Train{}, settingFlag(fs, err, map[string]string{"Out": "-o"})
	}
	t := o.Train
	var err error
	if o.taskName == "" {
		return app.Train{}, usagef("give --task select (the best OC class) or --task runtime (the time per step)")
	}
	if t.Task, err = models.ParseTask(o.taskName); err != nil {
		return app.Train{}, usagef("--task: %w", err)
	}
	if t.Params, err = models.ParseParams(o.paramText); err != nil {
		return app.Train{}, usagef("--param: %w", err)
	}
	if t.Catalog, err = catalog.Load(o.catalogFile); err != nil {
		return app.Train{}, err
	}
	t.Kinds = all
	return t, nil
}

// trainProgress draws the bars of the cross-validation and of the final fit's rounds; done
// closes the fit's bar where early stopping ended it before its last round.
func trainProgress(e *env, kind string, folds int) (cv func(done, total int), round func(models.Round), done func()) {
	var bar *progressbar.Bar
	if folds > 0 {
		cvBar := newProgress(e, fmt.Sprintf("cross-validation (%d folds)", folds), folds)
		cvBar.Update(0)
		cv = func(done, _ int) { cvBar.Update(done) }
	}
	round = func(r models.Round) {
		if bar == nil {
			// The bar begins as round r is reported: the rounds up to it ran before, so its
			// rate and time left count the rounds after it.
			bar = newProgress(e, "train "+kind, r.Rounds)
			bar.From = r.Round
		}
		bar.Label = fmt.Sprintf("train %s %s %.4g", kind, r.Metric, r.Train)
		if !math.IsNaN(r.Valid) {
			bar.Label += fmt.Sprintf(" valid %.4g", r.Valid)
		}
		bar.Update(r.Round)
	}
	return cv, round, func() {
		if bar != nil && bar.Done() < bar.Total {
			bar.Update(bar.Total)
		}
	}
}

// paramUsage makes a kind's refusal of its hyper-parameters a usage error (exit 2): the fix is
// in --param, not in the data.
func paramUsage(err error) error {
	if errors.As(err, new(models.ParamError)) {
		return usagef("--param: %w", err)
	}
	return err
}
