package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"strings"

	"smart/app"
	"smart/calibrate"
	"smart/internal/cliflag"
)

func runCalibrate(ctx context.Context, e *env, args []string) error {
	c := app.Calibrate{Command: "smart calibrate " + strings.Join(args, " ")}
	var asJSON bool
	var scoreFile string
	fs, rest, err := parse(e, "calibrate", args, func(fs *flag.FlagSet) {
		fs.StringVar(&scoreFile, "score", "", "score this calibration file (embedded: smart's own) on --test instead of fitting")
		fs.StringVar(&c.Out, "o", "", "calibration file to write")
		fs.Float64Var(&c.Settings.Level, "level", 0.8, "coverage the prediction interval aims at, in (0, 1)")
		fs.IntVar(&c.Settings.Folds, "folds", 0, fmt.Sprintf("parts the stencils are split into, each left out of one fit (0: one per stencil up to %d, then %d)", calibrate.DefaultFolds, calibrate.DefaultFolds))
		fs.BoolVar(&c.Replace, "force", false, "replace -o even where it is not a calibration file")
		fs.StringVar(&c.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
		fs.BoolVar(&asJSON, "json", false, "print the calibration file's contents as JSON")
		fs.Var((*cliflag.Paths)(&c.Data), "data", "measured data set to fit on (repeatable, or comma-separated)")
		fs.Var((*cliflag.Paths)(&c.Test), "test", "measured data set of another GPU to score the fit on (repeatable)")
	})
	if err := cmp.Or(err, noArgs(rest, "; give data sets with --data")); err != nil {
		return err
	}
	if scoreFile != "" {
		// --level too is a fit's: the file keeps its interval, not the held-out errors that
		// would give another level's.
		if len(c.Data) > 0 || c.Out != "" || cliflag.Given(fs, "level", "folds", "force") {
			return usagef("--score scores a calibration as it is, its interval too: give --test, not a fit's --data, -o, --level, --folds or --force")
		}
		f, err := app.ScoreCalibration{File: scoreFile, Test: c.Test, Catalog: c.Catalog}.Run(ctx)
		if err != nil {
			return settingFlag(fs, err, nil)
		}
		return printOut(e, asJSON, f, f.WriteTables)
	}
	var stop func() // the bar is drawn once the data sets are read and the fits counted
	c.Settings.Progress, stop = lazyProgress(e, "fitting")
	f, err := c.Run(ctx)
	if err != nil {
		stop()
		return settingFlag(fs, err, map[string]string{"Out": "-o"})
	}
	return printOut(e, asJSON, f, then(f.WriteTables, "wrote "+c.Out))
}
