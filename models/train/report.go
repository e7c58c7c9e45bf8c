package train

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"smart/models"
)

// WriteTables writes the report as tables: a line per GPU and the total, and for selection the
// confusion matrices.
func (r Report) WriteTables(w io.Writer) error {
	how := "the saved model on this data"
	switch {
	case r.InSample != "":
		// The table must say it, not only a note on stderr, which a log or a pipe may lose.
		how = "the saved model on the data it was trained on (in-sample: not a test)"
	case r.Folds > 0:
		how = fmt.Sprintf("%d-fold cross-validation grouped by %s", r.Folds, r.Grouping)
	case r.Holdout != "":
		how = fmt.Sprintf("trained on the other GPUs, %s held out", r.Holdout)
	}
	fmt.Fprintf(w, "%s %s, %s, %d rows (%s)\n", r.Kind, r.Task, how, r.Rows, dataSources(r.Data))
	rows := r.PerGPU
	if len(rows) != 1 { // with one GPU the total repeats it
		rows = append(append([]Scores(nil), r.PerGPU...), r.Overall)
	}
	if r.Task == models.Select {
		return writeSelectTables(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "GPU\trows\tMAPE\tp50\tp90\tp95\tp99\tmax\tpick share\tproblems\t")
	for _, s := range rows {
		p := s.Percentiles
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.0f%%\t%.1f%%\t%d\t\n", gpuOrAll(s.GPU), s.Rows, s.MAPE,
			p["p50"], p["p90"], p["p95"], p["p99"], p["max"], 100*s.PickShare, s.Problems)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, "MAPE, p50-max: mean and percentiles of the absolute percentage error of the predicted time per step\n",
		"pick share: mean over the problems of best measured time / measured time of the variant predicted fastest\n",
		"problems: the picks pick share averages: one per stencil on the GPU (one in all for a Kernel Tuner kernel)\n")
	return err
}

// writeSelectTables writes the selection scores of rows, then their confusion matrices.
func writeSelectTables(w io.Writer, rows []Scores) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "GPU\tinstances\taccuracy\tspeedup vs worst\tvs best fixed OC\tfixed OC\toracle share\tfixed OC share\t")
	for _, s := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.2fx\t%.2fx\t%s\t%.1f%%\t%.1f%%\t\n", gpuOrAll(s.GPU), s.Rows, 100*s.Accuracy,
			s.SpeedupOverWorst, s.SpeedupOverFixed, s.FixedOC, 100*s.OracleShare, 100*s.FixedShare)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, s := range rows {
		if err := writeConfusion(w, s); err != nil {
			return err
		}
	}
	return nil
}

func writeConfusion(w io.Writer, s Scores) error {
	fmt.Fprintf(w, "\nconfusion matrix, %s (rows: true class, columns: predicted):\n", gpuOrAll(s.GPU))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "\t")
	for _, c := range s.Classes {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for i, row := range s.Confusion {
		fmt.Fprintf(tw, "%s\t", s.Classes[i])
		for _, n := range row {
			fmt.Fprintf(tw, "%d\t", n)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if s.NotRun > 0 {
		fmt.Fprintf(w, "%d predicted OCs did not run on their stencil (share 0)\n", s.NotRun)
	}
	return nil
}

// WriteHoldoutTable writes the reports of leave-one-GPU-out, one line per held-out GPU, and
// their means.
func WriteHoldoutTable(w io.Writer, reports []Report) error {
	fmt.Fprintln(w, "leave-one-GPU-out: each GPU predicted by a model trained on the others")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "held-out GPU\trows\tMAPE\tp50\tp90\tpick share\t")
	mean, share := 0.0, 0.0
	for _, r := range reports {
		s := r.Overall
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", r.Holdout, s.Rows, s.MAPE, s.Percentiles["p50"], s.Percentiles["p90"], 100*s.PickShare)
		mean += s.MAPE / float64(len(reports))
		share += s.PickShare / float64(len(reports))
	}
	fmt.Fprintf(tw, "mean\t\t%.1f%%\t\t\t%.1f%%\t\n", mean, 100*share)
	return tw.Flush()
}

func gpuOrAll(g string) string {
	if g == "" {
		return "all"
	}
	return g
}

func dataSources(refs []models.DataRef) string {
	var parts []string
	for _, r := range refs {
		parts = append(parts, r.Path+": "+models.SourceCounts(r.Sources))
	}
	return strings.Join(parts, "; ")
}
