package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"smart/calibrate"
	"smart/catalog"
)

// calibrateOpts are the flags of the command.
type calibrateOpts struct {
	fit, test dirList
	out       string
	settings  calibrate.Settings // the level; the progress is the bar's
	force     bool
	catFile   string
	asJSON    bool
}

func (o *calibrateOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "o", "", "calibration file to write")
	fs.Float64Var(&o.settings.Level, "level", 0.8, "coverage the prediction interval aims at, in (0, 1)")
	fs.BoolVar(&o.force, "force", false, "replace -o even where it is not a calibration file")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.BoolVar(&o.asJSON, "json", false, "print the calibration file's contents as JSON")
}

func runCalibrate(ctx context.Context, e *env, args []string) error {
	var o calibrateOpts
	fs := newFlags(e, "calibrate")
	o.register(fs)
	fs.Var(&o.fit, "data", "measured data set to fit on (repeatable, or comma-separated)")
	fs.Var(&o.test, "test", "measured data set of another GPU to score the fit on (repeatable)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	fitData, testData, err := o.load(rest)
	if err != nil {
		return err
	}
	bar := newProgress(e, "fitting", len(fitData.Groups)+1)
	fitted := 0
	o.settings.Progress = func(done, _ int) { fitted = done; bar.Update(done) }
	f, err := calibrate.Fit(ctx, fitData, testData, o.settings)
	if err != nil {
		bar.Stop(fitted)
		return err
	}
	f.Command = "smart calibrate " + strings.Join(args, " ")
	if err := calibrate.Write(o.out, f, o.force); err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(e, f)
	}
	if err := f.WriteTables(e.stdout); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", o.out)
	return nil
}

// load checks the flags and -o, and reads the data sets to fit on and to test on.
func (o *calibrateOpts) load(rest []string) (fitData, testData *calibrate.Data, err error) {
	switch {
	case len(rest) > 0:
		return nil, nil, usagef("unexpected argument %q; give data sets with --data", rest[0])
	case len(o.fit) == 0:
		return nil, nil, usagef("give the measured data sets to fit on with --data")
	case o.out == "":
		return nil, nil, usagef("give the file to write with -o")
	case !(o.settings.Level > 0 && o.settings.Level < 1):
		return nil, nil, usagef("--level %g: give a coverage between 0 and 1, e.g. 0.8", o.settings.Level)
	}
	if err := calibrate.CheckWritable(o.out, o.force); err != nil {
		if errors.Is(err, calibrate.ErrNotCalibration) {
			return nil, nil, fmt.Errorf("%w; nothing was written: give another -o or --force", err)
		}
		return nil, nil, err
	}
	cat, err := catalog.Load(o.catFile)
	if err != nil {
		return nil, nil, err
	}
	if fitData, err = calibrate.Load(o.fit, cat); err != nil {
		return nil, nil, err
	}
	if len(o.test) > 0 {
		if testData, err = calibrate.Load(o.test, cat); err != nil {
			return nil, nil, err
		}
	}
	return fitData, testData, nil
}
