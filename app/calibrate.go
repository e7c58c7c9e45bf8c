package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"smart/calibrate"
	"smart/catalog"
)

// Calibrate is a fit of the analytic model's constants (smart calibrate): the measured data
// sets to fit on and to test on, and the calibration file written.
type Calibrate struct {
	Data     []string           // measured data sets to fit on
	Test     []string           // measured data sets of other GPUs to score the fit on; nil for none
	Out      string             // the calibration file to write
	Replace  bool               // replace Out even where it is not a calibration file
	Catalog  string             // GPU catalogue file merged over the embedded one; "" for none
	Settings calibrate.Settings // the interval's level, the folds, and the fits' progress
	Command  string             // recorded in the file: the command line that wrote it
}

// Check refuses, before any data set is read, missing data sets or file, a test data set the
// fit reads too, a level out of range and a number of folds that leaves nothing out, each as a
// *SettingError of its field, and an Out that cannot be written (holding another kind of file: a
// *SettingError wrapping an *atomicfile.NotOursError).
func (c Calibrate) Check() error {
	for _, t := range c.Test {
		if slices.ContainsFunc(c.Data, func(d string) bool { return sameDir(d, t) }) {
			return wrong("Test", t, "the fit reads it too; a test scores data the fit has not seen")
		}
	}
	switch {
	case len(c.Data) == 0:
		return wrong("Data", "", "required: the measured data sets to fit on")
	case c.Out == "":
		return wrong("Out", "", "required: the calibration file to write")
	case !(c.Settings.Level > 0 && c.Settings.Level < 1): // NaN too
		return wrong("Level", fmt.Sprint(c.Settings.Level), "give a coverage between 0 and 1, e.g. 0.8")
	case c.Settings.Folds < 0 || c.Settings.Folds == 1:
		return wrong("Folds", fmt.Sprint(c.Settings.Folds), "give 2 or more folds, or 0 for one per stencil up to %d", calibrate.DefaultFolds)
	}
	return checkReplace("Out", c.Out, c.Replace, calibrate.FileKind())
}

// sameDir reports whether a and b are the same directory: the same file where both exist, else
// the same absolute path.
func sameDir(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}

// Run checks c, reads the data sets, fits the constants and writes the file. Settings.Progress,
// where set, hears of the fits to come (0 done) once the data sets are read.
func (c Calibrate) Run(ctx context.Context) (*calibrate.File, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	cat, err := catalog.Load(c.Catalog)
	if err != nil {
		return nil, err
	}
	fit, err := calibrate.Load(ctx, c.Data, cat)
	if err != nil {
		return nil, err
	}
	var test *calibrate.Data
	if len(c.Test) > 0 {
		if test, err = calibrate.Load(ctx, c.Test, cat); err != nil {
			return nil, err
		}
	}
	k, err := fit.Folds(c.Settings.Folds)
	if err != nil {
		return nil, err
	}
	if c.Settings.Progress != nil {
		c.Settings.Progress(0, k+1) // as Fit counts: one fit per fold left out, then all
	}
	f, err := calibrate.Fit(ctx, fit, test, c.Settings)
	if err != nil {
		return nil, err
	}
	f.Command = c.Command
	if err := calibrate.Write(c.Out, f, c.Replace); err != nil {
		return nil, err
	}
	return f, nil
}

// ScoreCalibration scores a calibration file on measured data sets it was not fitted on, without
// fitting: how the constants carry to a new GPU or to stencils measured since.
type ScoreCalibration struct {
	File    string   // the calibration file; "embedded" for smart's own
	Test    []string // measured data sets to score it on
	Catalog string   // GPU catalogue file merged over the embedded one; "" for none
}

// Run reads the file and the data sets and returns the file with its test scores (and the GPUs'
// copy bandwidths it lacked) from Test, its leave-one-out scores left out, and in InSample the
// data sets of Test it was fitted on. Once ctx is done it stops reading or scoring, with an error
// that wraps ctx.Err().
func (s ScoreCalibration) Run(ctx context.Context) (*calibrate.File, error) {
	if len(s.Test) == 0 {
		return nil, wrong("Test", "", "required: the measured data sets to score the calibration on")
	}
	var f *calibrate.File
	var err error
	if s.File == "embedded" {
		f, err = calibrate.Default()
	} else {
		f, err = calibrate.Read(s.File)
	}
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(s.Catalog)
	if err != nil {
		return nil, err
	}
	test, err := calibrate.Load(ctx, s.Test, cat)
	if err != nil {
		return nil, err
	}
	if err := f.ScoreTest(ctx, test); err != nil {
		return nil, err
	}
	f.LeaveOneOut = nil
	return f, nil
}
