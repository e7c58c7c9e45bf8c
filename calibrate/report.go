package calibrate

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTables writes the scores of the calibration as text tables, before and after the fit,
// held out, and its interval: what smart calibrate prints.
func (f *File) WriteTables(w io.Writer) error {
	for _, part := range []struct {
		title  string
		scores []Score
	}{{"Each stencil left out of the fit (literature constants -> fitted on the others):", f.LeaveOneOut},
		{"Other GPUs (literature constants -> fitted on every stencil above):", f.Test}} {
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
	}
	iv := f.Interval
	band := iv.Around(1)
	fmt.Fprintf(w, "%.0f%% interval: %.2fx to %.2fx the modelled time (held-out errors of %d stencils, %d rows)\n",
		100*iv.Level, band.LoMs, band.HiMs, iv.Stencils, iv.Rows)
	fmt.Fprintln(w, "ratio: median modelled/measured; best share: the best measured time over that of the model's fastest setting;")
	fmt.Fprintln(w, "coverage: measured times inside the interval built without the stencil (or, other GPUs, with all)")
	return nil
}
