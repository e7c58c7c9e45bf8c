package calibrate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"smart/internal/english"
	"smart/models/roofline"
)

// WriteTables writes the scores of the calibration as text tables, before and after the fit,
// held out, and its interval: what smart calibrate prints. A file without leave-one-out scores
// is one scored as it is (app.ScoreCalibration): nothing above its test was fitted.
func (f *File) WriteTables(w io.Writer) error {
	scoring := len(f.LeaveOneOut) == 0
	for _, dir := range f.InSample {
		fmt.Fprintf(w, "warning: %s is among the data sets the calibration was fitted on (fitted_on): its scores are in-sample, not a test\n", dir)
	}
	held := "Each stencil left out of the fit (literature constants -> fitted on the others):"
	stencils := map[string]bool{}
	for _, s := range f.LeaveOneOut {
		stencils[s.Stencil] = true
	}
	if f.Folds > 0 && f.Folds < len(stencils) {
		held = fmt.Sprintf("Each stencil held out of the fit with its fold, one of %d (literature constants -> fitted on the other folds):", f.Folds)
	}
	test := "Other GPUs (literature constants -> fitted on every stencil above):"
	if scoring {
		test = "Scored as it is, nothing fitted (literature constants -> the calibration's):"
	}
	for _, part := range []struct {
		title  string
		scores []Score
	}{{held, f.LeaveOneOut}, {test, f.Test}} {
		if len(part.scores) == 0 {
			continue
		}
		fmt.Fprintln(w, part.title)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "gpu\tstencil\trows\tratio\tMAPE\tSpearman\tbest share\t\tratio\tMAPE\tSpearman\tbest share\tcoverage\t")
		for _, s := range part.scores {
			b, a := s.Before, s.After
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.0f%%\t%.2f\t%.2f\t->\t%.2f\t%.0f%%\t%.2f\t%.2f\t%.0f%%\t\n", s.GPU, s.Stencil, a.N,
				b.MedianRatio, 100*b.MAPE, b.Spearman, b.BestShare, a.MedianRatio, 100*a.MAPE, a.Spearman, a.BestShare, 100*s.Coverage)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		b, a := summarise(part.scores, func(s Score) roofline.Accuracy { return s.Before }), summarise(part.scores, func(s Score) roofline.Accuracy { return s.After })
		level := ""
		if a.LevelMAPE > 0 { // files written before it was scored lack it
			level = fmt.Sprintf(" (%.1f%% with each stencil's level right)", 100*a.LevelMAPE)
		}
		fmt.Fprintf(w, "  all %d: MAPE mean %.1f%% -> %.1f%%%s, Spearman median %.2f -> %.2f, best share geometric mean %.2f -> %.2f\n",
			len(part.scores), 100*b.MAPE, 100*a.MAPE, level, b.Spearman, a.Spearman, b.BestShare, a.BestShare)
	}
	if n := len(f.Unscored); n > 0 {
		fmt.Fprintf(w, "note: %s of the test left out, with fewer than 2 rows the model times (nothing to rank): %s\n",
			english.Plural(n, "stencil"), strings.Join(f.Unscored, ", "))
	}
	read := f.TestedOn // the data sets this run read: a scored file's fit read others
	if !scoring {
		read = append(slices.Clip(f.FittedOn), read...)
	}
	for _, s := range read {
		if s.Unmodelled > 0 {
			fmt.Fprintf(w, "note: %s: %d of its %d rows measured ok left out, settings the model gives no time (the first, %s)\n",
				s.Dir, s.Unmodelled, s.Rows, s.UnmodelledWhy)
		}
	}
	iv := f.Interval
	band := iv.Around(1)
	fmt.Fprintf(w, "%.0f%% interval: %.2fx to %.2fx the modelled time (held-out errors of %d stencils, %d rows)\n",
		100*iv.Level, band.LoMs, band.HiMs, iv.Stencils, iv.Rows)
	fmt.Fprintln(w, "ratio: median modelled/measured; best share: the best measured time over that of the model's fastest setting;")
	if scoring {
		fmt.Fprintln(w, "coverage: measured times inside the calibration's interval")
	} else {
		fmt.Fprintln(w, "coverage: measured times inside the interval built without the stencil (or, other GPUs, with all)")
	}
	return nil
}

// summarise gives the mean MAPE and level MAPE, the (lower) median Spearman and the geometric
// mean best share of the scores' accuracies (as an Accuracy, its other fields unset).
func summarise(scores []Score, of func(Score) roofline.Accuracy) roofline.Accuracy {
	var sum roofline.Accuracy
	var rho []float64
	logShare := 0.0
	for _, s := range scores {
		a := of(s)
		sum.MAPE += a.MAPE / float64(len(scores))
		sum.LevelMAPE += a.LevelMAPE / float64(len(scores))
		if !math.IsNaN(a.Spearman) { // a stencil of one row has no ranking
			rho = append(rho, a.Spearman)
		}
		logShare += math.Log(a.BestShare) / float64(len(scores))
	}
	sum.Spearman = math.NaN()
	if len(rho) > 0 {
		slices.Sort(rho)
		sum.Spearman = stat.Quantile(0.5, stat.Empirical, rho, nil)
	}
	sum.BestShare = math.Exp(logShare)
	return sum
}
