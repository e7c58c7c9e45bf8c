package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"smart/app"
	"smart/calibrate"
)

// calibrateFlags name the flag of each field of app.Calibrate.
var calibrateFlags = map[string]string{"Data": "--data", "Out": "-o", "Level": "--level"}

func runCalibrate(ctx context.Context, e *env, args []string) error {
	c := app.Calibrate{Command: "smart calibrate " + strings.Join(args, " ")}
	var asJSON bool
	_, rest, err := parse(e, "calibrate", args, func(fs *flag.FlagSet) {
		fs.StringVar(&c.Out, "o", "", "calibration file to write")
		fs.Float64Var(&c.Settings.Level, "level", 0.8, "coverage the prediction interval aims at, in (0, 1)")
		fs.BoolVar(&c.Replace, "force", false, "replace -o even where it is not a calibration file")
		fs.StringVar(&c.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
		fs.BoolVar(&asJSON, "json", false, "print the calibration file's contents as JSON")
		fs.Var((*dirList)(&c.Data), "data", "measured data set to fit on (repeatable, or comma-separated)")
		fs.Var((*dirList)(&c.Test), "test", "measured data set of another GPU to score the fit on (repeatable)")
	})
	switch {
	case err != nil:
		return err
	case len(rest) > 0:
		return usagef("unexpected argument %q; give data sets with --data", rest[0])
	}
	var bar *progress // made once the data sets are read and the fits counted
	fitted := 0
	c.Settings.Progress = func(done, total int) {
		if bar == nil {
			bar = newProgress(e, "fitting", total)
		}
		if fitted = done; done > 0 {
			bar.Update(done)
		}
	}
	f, err := c.Run(ctx)
	if errors.Is(err, calibrate.ErrNotCalibration) {
		return fmt.Errorf("%w; nothing was written: give another -o or --force", err)
	}
	if err != nil {
		if bar != nil && fitted < bar.total { // a fit failed or was interrupted
			bar.Stop(fitted)
		}
		return settingFlag(err, calibrateFlags)
	}
	return printOut(e, asJSON, f, func(w io.Writer) error {
		if err := f.WriteTables(w); err != nil {
			return err
		}
		_, err := fmt.Fprintf(w, "wrote %s\n", c.Out)
		return err
	})
}
