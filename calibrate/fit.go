package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"smart"
	"smart/models"
	"smart/models/roofline"
)

// Format names the calibration file's layout; Read refuses any other.
const Format = "smart-calibration/1"

// File is a fitted calibration with the data it came from and what it was checked on.
type File struct {
	Format string `json:"format"`
	// Command is the command line that wrote the file, to rebuild it.
	Command     string               `json:"command,omitempty"`
	FittedOn    []Source             `json:"fitted_on"`
	TestedOn    []Source             `json:"tested_on,omitempty"`
	Calibration roofline.Calibration `json:"calibration"`
	// Interval is the spread of the model's errors on stencils its fit had not seen.
	Interval models.Interval `json:"interval"`
	// LeaveOneOut scores each fit stencil with the constants fitted without it (and the rest
	// of its fold); Test scores the data of other GPUs with the constants fitted on every fit
	// stencil.
	LeaveOneOut []Score `json:"leave_one_out"`
	Test        []Score `json:"test,omitempty"`
	// InSample names the test data sets the calibration was fitted on (fittedOn): their scores
	// are no test.
	InSample []string `json:"in_sample,omitempty"`
	// Unscored names the test stencils (GPU and stencil) left out of Test with fewer than two
	// rows the model times: nothing to rank (a stencil only begun).
	Unscored []string `json:"unscored,omitempty"`
	// Folds is how many parts the fit's stencils were split into, each left out of one fit
	// (as many as stencils: each left out alone); 0 in files written before folds were.
	Folds int `json:"folds,omitempty"`
	// Range is what the fit's stencils covered, where Interval was measured (nil in files
	// written before it was recorded).
	Range *models.Range `json:"range,omitempty"`
}

// Score is how the model does on one stencil's measured rows, with the literature's constants
// (Before) and the fitted ones (After).
type Score struct {
	GPU     string            `json:"gpu"`
	Stencil string            `json:"stencil"`
	Before  roofline.Accuracy `json:"before"`
	After   roofline.Accuracy `json:"after"`
	// Coverage is the share of the rows whose measured time lies in the interval around the
	// fitted time, the interval built without this stencil.
	Coverage float64 `json:"coverage"`
}

// DefaultFolds is the most parts a fit's stencils are split into when Settings.Folds is 0: up
// to that many stencils each is left out alone, and a campaign's hundreds cost DefaultFolds+1
// fits rather than one per stencil (a fit's time grows with its rows).
const DefaultFolds = 12

// Settings are the choices of a calibration run.
type Settings struct {
	Level float64 // of the interval, in (0, 1)
	// Folds is how many parts the fit's stencils are split into, each part left out of one fit
	// that scores it; 0 means one stencil a part up to DefaultFolds stencils, DefaultFolds
	// beyond. At most one part per stencil; a stencil measured on several GPUs is left out of
	// its fit on all of them.
	Folds int
	// Progress, when set, is called as each of the fits (one per fold left out, then the final
	// one) completes.
	Progress func(done, total int)
	// Fold, when set, receives for each i the constants fitted without fit.Groups[i]'s fold,
	// for analyses of their own (it may be called from several goroutines, each i once).
	Fold func(i int, cal *roofline.Calibration)
}

// Folds returns the number of folds Fit splits d's stencils into when asked for want (as
// Settings.Folds), or an error where that cannot be.
func (d *Data) Folds(want int) (int, error) {
	n := len(d.stencils())
	switch {
	case n < 3:
		return 0, fmt.Errorf("calibration: %d stencils measured (%s); leaving some out of each fit needs at least 3: give data sets of more stencils", n, d.stencilNames())
	case want < 0 || want == 1:
		return 0, fmt.Errorf("calibration: %d folds; leaving a part of the stencils out needs at least 2 (0: the default)", want)
	case want == 0:
		return min(n, DefaultFolds), nil
	}
	return min(n, want), nil
}

// stencilNames lists d's stencils by name, each once, for an error.
func (d *Data) stencilNames() string {
	var names []string
	for _, g := range d.Groups {
		if !slices.Contains(names, g.Stencil) {
			names = append(names, g.Stencil)
		}
	}
	return strings.Join(names, ", ")
}

// stencils are the IDs of d's stencils, sorted.
func (d *Data) stencils() []string {
	var ids []string
	for _, g := range d.Groups {
		ids = append(ids, g.ID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// foldOf deals d's stencils, in the order of their IDs (hashes, so in no order of shape or
// size), into k folds in turn, and returns each group's fold.
func (d *Data) foldOf(k int) []int {
	index := map[string]int{}
	for i, id := range d.stencils() {
		index[id] = i % k
	}
	out := make([]int, len(d.Groups))
	for i, g := range d.Groups {
		out[i] = index[g.ID]
	}
	return out
}

// Fit fits the model's constants to fit, leaving each fold of its stencils out in turn to
// score the fit on stencils it has not seen and to build the interval, then on every stencil
// for the constants it returns; test (nil: none) is scored with those (File.ScoreTest).
func Fit(ctx context.Context, fit, test *Data, s Settings) (*File, error) {
	if !(s.Level > 0 && s.Level < 1) {
		return nil, fmt.Errorf("calibration: interval level %g is not between 0 and 1", s.Level)
	}
	k, err := fit.Folds(s.Folds)
	if err != nil {
		return nil, err
	}
	n := len(fit.Groups)
	fold := fit.foldOf(k)
	f := &File{Format: Format, FittedOn: fit.Sources, Folds: k}
	resid := make([][]float64, n)
	scores := make([]Score, n)
	errs := make([]error, k+1)
	var full *roofline.Calibration
	var mu sync.Mutex
	done := 0
	step := func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		if s.Progress != nil {
			s.Progress(done, k+1)
		}
	}
	// The fits are independent and each is deterministic: in parallel, the result is the same.
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for out := range k + 1 { // k: none left out
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var in []roofline.StencilSample
			var held []int
			for i, g := range fit.Groups {
				if fold[i] == out {
					held = append(held, i)
				} else {
					in = append(in, g.Samples...)
				}
			}
			cal, err := roofline.FitStencil(ctx, in, fit.CopyGBs)
			if err != nil {
				if len(held) > 0 {
					err = fmt.Errorf("leaving %s out: %w", fit.names(held), err)
				}
				errs[out] = err
				return
			}
			if out == k {
				full = cal
			}
			for _, i := range held {
				if s.Fold != nil {
					s.Fold(i, cal)
				}
				g := fit.Groups[i]
				scores[i] = Score{GPU: g.GPU, Stencil: g.Stencil, Before: score(g, nil), After: score(g, cal)}
				resid[i] = residuals(g, cal)
			}
			step()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil && done < k+1 { // every fit done: the result stands
		// Once, not once per fold that it stopped.
		return nil, fmt.Errorf("calibration: %w after %d of %d fits", err, done, k+1)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	f.LeaveOneOut = scores
	for i, g := range fit.Groups {
		var others [][]float64 // of the other stencils, on every GPU
		for j, h := range fit.Groups {
			if h.ID != g.ID {
				others = append(others, resid[j])
			}
		}
		f.LeaveOneOut[i].Coverage = models.Coverage(models.NewInterval(others, s.Level, ""), resid[i])
	}
	f.Interval = models.NewInterval(resid, s.Level, "")
	f.Interval.From = fmt.Sprintf("errors of the calibrated model on %d measured stencils, each left out of its fit (%s)", f.Interval.Stencils, strings.Join(gpus(fit.Groups), ", "))
	var sts []*smart.Stencil
	seen := map[string]bool{}
	for _, g := range fit.Groups {
		if len(g.Samples) > 0 && !seen[g.ID] { // a stencil measured on several GPUs counts once
			seen[g.ID] = true
			sts = append(sts, g.Samples[0].Stencil)
		}
	}
	r := models.RangeOf(sts, gpus(fit.Groups))
	f.Range = &r
	f.Calibration = *full
	if test != nil {
		// Every fit is done and the result stands: scoring the test (seconds) is not stopped
		// by an interrupt that would lose the fits (minutes).
		if err := f.ScoreTest(context.WithoutCancel(ctx), test); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// ScoreTest scores f's constants and interval on test, data sets the fit did not see, in place
// of f's test scores, and names in InSample those it did see after all. Copy bandwidths measured
// beside them join the calibration where it has none of their GPU: they are measurements of the
// hardware, not fitted. A stencil of one row is left out; test without a stencil left to score
// is an error. Once ctx is done it stops between stencils, with an error that wraps ctx.Err()
// (f's test scores then incomplete).
func (f *File) ScoreTest(ctx context.Context, test *Data) error {
	f.TestedOn, f.Test, f.InSample = test.Sources, nil, nil
	for _, s := range test.Sources {
		if f.fittedOn(s) {
			f.InSample = append(f.InSample, s.Dir)
		}
	}
	for gpu, gbs := range test.CopyGBs {
		if _, ok := f.Calibration.CopyGBs[gpu]; !ok {
			if f.Calibration.CopyGBs == nil {
				f.Calibration.CopyGBs = map[string]float64{}
			}
			f.Calibration.CopyGBs[gpu] = gbs
		}
	}
	for i, g := range test.Groups {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("calibration test: stopped after %d of %d stencils: %w", i, len(test.Groups), err)
		}
		if len(g.Samples) < 2 {
			f.Unscored = append(f.Unscored, g.GPU+" "+g.Stencil) // no ranking to score: a stencil only begun
			continue
		}
		f.Test = append(f.Test, Score{GPU: g.GPU, Stencil: g.Stencil, Before: score(g, nil), After: score(g, &f.Calibration),
			Coverage: models.Coverage(f.Interval, residuals(g, &f.Calibration))})
	}
	if len(f.Test) == 0 {
		var dirs []string
		for _, s := range test.Sources {
			dirs = append(dirs, s.Dir)
		}
		return fmt.Errorf("calibration test %s: no stencil with 2 rows the model times; nothing to score", strings.Join(dirs, ", "))
	}
	return nil
}

// fittedOn reports whether the data set test is one of f.FittedOn: of the same GPU, and at the
// same path or with the same stencils, rows and copy bandwidth (a copy). A relative path of
// FittedOn is of wherever the fit ran, so it matches the end of test's absolute path too; a
// data set grown since the fit matches by its path alone.
func (f *File) fittedOn(test Source) bool {
	abs, err := filepath.Abs(test.Dir)
	if err != nil {
		abs = filepath.Clean(test.Dir)
	}
	for _, s := range f.FittedOn {
		dir := filepath.Clean(s.Dir)
		switch {
		case s.GPU != test.GPU:
		case abs == dir, strings.HasSuffix(abs, string(filepath.Separator)+dir):
			return true
		case s.Stencils == test.Stencils && s.Rows == test.Rows && s.CopyGBs == test.CopyGBs:
			return true
		}
	}
	return false
}

// modelled returns the model's times of g's samples with cal (nil: the literature's), and the
// measured times beside them; samples the model rejects are left out.
func modelled(g *Group, cal *roofline.Calibration) (mod, meas []float64) {
	for _, s := range g.Samples {
		e, err := roofline.ModelWith(s.Stencil, s.Tuning, s.GPU, cal)
		if err != nil {
			continue
		}
		mod = append(mod, e.TimeMs)
		meas = append(meas, s.TimeMs)
	}
	return mod, meas
}

func score(g *Group, cal *roofline.Calibration) roofline.Accuracy {
	return roofline.Score(modelled(g, cal))
}

// residuals are ln(measured/modelled) of g's samples.
func residuals(g *Group, cal *roofline.Calibration) []float64 {
	mod, meas := modelled(g, cal)
	out := make([]float64, len(mod))
	for i := range mod {
		out[i] = math.Log(meas[i] / mod[i])
	}
	return out
}

// Beyond lists the ways a time of st on gpu lies outside what f's interval was measured on:
// a GPU it was not measured on (only the fit's data measure it; a test set only checks it, and
// its coverage there is said), a stencil outside the fit's orders, element types or grids; nil
// where inside.
func (f *File) Beyond(st *smart.Stencil, gpu string) []string {
	var measured, tested []string
	for _, s := range f.FittedOn {
		if !slices.Contains(measured, s.GPU) {
			measured = append(measured, s.GPU)
		}
	}
	for _, s := range f.TestedOn {
		if !slices.Contains(measured, s.GPU) && !slices.Contains(tested, s.GPU) {
			tested = append(tested, s.GPU)
		}
	}
	var out []string
	switch on := strings.Join(measured, ", "); {
	case len(measured) == 0 || slices.Contains(measured, gpu):
	case slices.Contains(tested, gpu):
		var sum float64
		var n int
		for _, sc := range f.Test {
			if sc.GPU == gpu {
				sum, n = sum+sc.Coverage, n+1
			}
		}
		msg := fmt.Sprintf("the interval was measured on the %s; the %s was only a test set", on, gpu)
		if n > 0 {
			msg = fmt.Sprintf("the interval was measured on the %s; on the %s, only a test set, it held %.0f%% of the measured times (mean over %d stencils)", on, gpu, 100*sum/float64(n), n)
		}
		out = append(out, msg)
	case len(tested) > 0:
		out = append(out, fmt.Sprintf("the %s is not among the GPUs the interval was measured on (%s) or only tested on (%s)", gpu, on, strings.Join(tested, ", ")))
	default:
		out = append(out, fmt.Sprintf("the %s is not among the GPUs the interval was measured on (%s)", gpu, on))
	}
	if f.Range != nil {
		out = append(out, f.Range.Outside(st)...)
	}
	return out
}
