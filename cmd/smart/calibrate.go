package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"smart/calibrate"
	"smart/catalog"
)

func runCalibrate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "calibrate", "--data DIR [--data DIR...] [--test DIR...] -o FILE [flags]", `
Fits the analytic stencil model's free constants (rates, latencies, barrier and spill costs, a
factor per OC) to measured data sets, and writes them with the data sets they came from to FILE
(format smart-calibration/1; smart's embedded calibration is data/calibration/stencil.json).

To say how far the fit can be trusted on stencils it has not seen, every measured stencil is
left out once and scored with the constants fitted on the others (median modelled/measured,
MAPE, Spearman, and the share of the best measured time that the model's own fastest setting
reaches); the held-out errors give the prediction interval (split conformal, each stencil
weighing the same), and each stencil's coverage is that of the interval built without it.
--test scores data sets of other GPUs with the constants fitted on all of --data. Only measured
rows count, timed in full (rows the measuring protocol cut short are skipped). A run fits once
per stencil, plus once: about 5 s a fit on two cores.

Examples:
  smart calibrate --data data/measured/h100-sxm/classic --data data/measured/h100-sxm/random/j3d19pt -o cal.json
  smart calibrate --data data/measured/h100-sxm/classic,data/measured/h100-sxm/random/j3d19pt --test data/measured/h200/random/j3d19pt,data/measured/h200/resample/j3d7pt -o cal.json --json`)
	var fit, test dirList
	fs.Var(&fit, "data", "measured data set to fit on (repeatable, or comma-separated)")
	fs.Var(&test, "test", "measured data set of another GPU to score the fit on (repeatable)")
	out := fs.String("o", "", "calibration file to write")
	level := fs.Float64("level", 0.8, "coverage the prediction interval aims at, in (0, 1)")
	force := fs.Bool("force", false, "replace -o even where it is not a calibration file")
	catFile := fs.String("catalog", "", "GPU catalogue file merged over the embedded one")
	asJSON := fs.Bool("json", false, "print the calibration file's contents as JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usagef("unexpected argument %q; give data sets with --data", rest[0])
	case len(fit) == 0:
		return usagef("give the measured data sets to fit on with --data")
	case *out == "":
		return usagef("give the file to write with -o")
	case !(*level > 0 && *level < 1):
		return usagef("--level %g: give a coverage between 0 and 1, e.g. 0.8", *level)
	}
	if err := calibrate.CheckWritable(*out, *force); err != nil {
		if errors.Is(err, calibrate.ErrNotCalibration) {
			return fmt.Errorf("%w; nothing was written: give another -o or --force", err)
		}
		return err
	}
	cat, err := catalog.Load(*catFile)
	if err != nil {
		return err
	}
	fitData, err := calibrate.Load(fit, cat)
	if err != nil {
		return err
	}
	var testData *calibrate.Data
	if len(test) > 0 {
		if testData, err = calibrate.Load(test, cat); err != nil {
			return err
		}
	}
	bar := newProgress(e, "fitting", len(fitData.Groups)+1)
	fitted := 0
	f, err := calibrate.Fit(ctx, fitData, testData, calibrate.Settings{Level: *level, Progress: func(done, _ int) { fitted = done; bar.Update(done) }})
	if err != nil {
		bar.Stop(fitted)
		return err
	}
	f.Command = "smart calibrate " + strings.Join(args, " ")
	if err := calibrate.Write(*out, f, *force); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, f)
	}
	if err := f.WriteTables(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", *out)
	return nil
}
