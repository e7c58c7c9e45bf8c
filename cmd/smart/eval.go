package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"smart/catalog"
	"smart/models"
	"smart/models/kinds"
	"smart/models/train"
)

// evalHelp is the description of --help, with examples.
const evalHelp = `
Scores a model on data sets, per GPU and over all rows.

Selection models: accuracy, the confusion matrix (rows: true class, columns: predicted), the
speedup of the predicted OC over the worst OC and over the single best fixed OC (geometric
means), and the share of the oracle's performance reached (mean over stencils of best time /
time of the predicted OC). Runtime models: MAPE, the distribution of absolute percentage errors
(percentiles), and how close the variant the model predicts fastest comes to the best measured
one (pick share, mean over the problems of best time / time of the pick; the problems column
counts them: the stencils on the GPU, or one for a Kernel Tuner kernel).

Without --cv or --holdout-gpu the saved model predicts the data as it is; when the data is what
it was trained on, the scores are in-sample and say so. --cv K trains the model's kind again with
its hyper-parameters on K folds grouped by stencil and scores the out-of-fold predictions.
--holdout-gpu NAME trains on every other GPU of the data and predicts NAME from its catalogue
features (leave-one-GPU-out); 'all' holds out each GPU in turn.

Examples:
  smart eval select-a100.model --data runs/a100-sim --cv 5
  smart eval rt.model --data data/measured/h100-sxm/random/j3d19pt,data/measured/h100-sxm/random/j3d125pt --json
  smart eval conv-forest.model --data runs/conv --holdout-gpu all`

// evalOpts are the flags of the command.
type evalOpts struct {
	dirs        dirList
	cv          int
	holdout     string
	seed        uint64
	catalogFile string
	asJSON      bool
}

func (o *evalOpts) register(fs *flag.FlagSet) {
	fs.IntVar(&o.cv, "cv", 0, "cross-validate with this many folds (retrains the model's kind)")
	fs.StringVar(&o.holdout, "holdout-gpu", "", "GPU to hold out (train on the others), or all")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the cross-validation folds")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print the report as JSON, one line per report (JSON Lines; one per held-out GPU with --holdout-gpu all)")
}

func runEval(ctx context.Context, e *env, args []string) error {
	var o evalOpts
	fs := newFlags(e, "eval", "MODEL --data DIR [--data DIR...] [--cv K | --holdout-gpu NAME|all] [--json]", evalHelp)
	o.register(fs)
	fs.Var(&o.dirs, "data", "data set directory (repeat, or separate with commas)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usagef("give one model file")
	case len(o.dirs) == 0:
		return usagef("--data DIR is required")
	case o.cv == 1 || o.cv < 0:
		return usagef("--cv is %d; use 2 or more folds", o.cv)
	case o.cv > 0 && o.holdout != "":
		return usagef("give --cv or --holdout-gpu, not both")
	}
	m, set, err := o.load(e, pos[0])
	if err != nil {
		return err
	}
	reports, err := o.score(ctx, e, m, set)
	if err != nil {
		return err
	}
	if o.asJSON {
		for _, r := range reports {
			if err := writeJSON(e, r); err != nil {
				return err
			}
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "model %s: %s %s, trained on %s\n", pos[0], m.Header.Kind, m.Header.Task, trainingData(m.Header))
	if o.holdout == "all" {
		printHoldoutTable(e.stdout, reports)
		return nil
	}
	for _, r := range reports {
		printReport(e.stdout, r)
	}
	return nil
}

// load reads the model and builds the data sets' rows as it was trained on them.
func (o *evalOpts) load(e *env, path string) (*models.Model, *train.Set, error) {
	m, err := models.Load(path, kinds.All())
	if err != nil {
		return nil, nil, err
	}
	cat, err := catalog.Load(o.catalogFile)
	if err != nil {
		return nil, nil, err
	}
	h := m.Header
	if h.Inputs == nil {
		return nil, nil, fmt.Errorf("model %s has no record of how its rows were built; it was not trained by smart train", path)
	}
	set, err := train.Load(o.dirs, train.Options{Task: h.Task, Catalog: cat, Inputs: h.Inputs, Classes: h.Classes, Dims: h.Inputs.Dims})
	if err != nil {
		return nil, nil, err
	}
	if set.Dropped > 0 {
		fmt.Fprintf(e.stderr, "left out %d rows of stencils that are not %d-D, as the model is\n", set.Dropped, h.Inputs.Dims)
	}
	fmt.Fprintf(e.stderr, "%s\n", describeSet(set))
	return m, set, nil
}

// score cross-validates the model's kind, holds GPUs out, or scores the model itself.
func (o *evalOpts) score(ctx context.Context, e *env, m *models.Model, set *train.Set) ([]train.Report, error) {
	h, all := m.Header, kinds.All()
	var reports []train.Report
	switch {
	case o.cv > 0:
		bar := newProgress(e, fmt.Sprintf("cross-validation (%d folds)", o.cv), o.cv)
		bar.Update(0)
		p, err := train.CrossValidate(ctx, all, h.Kind, set, o.cv, o.seed, h.Params, bar.Update)
		if err != nil {
			return nil, fmt.Errorf("cross-validation: %w", err)
		}
		r := train.Score(set, p)
		r.Folds = o.cv
		reports = append(reports, r)
	case o.holdout != "":
		gpus := []string{o.holdout}
		if o.holdout == "all" {
			gpus = set.GPUNames()
		} else if !slices.Contains(set.GPUNames(), o.holdout) {
			return nil, usagef("--holdout-gpu %s: the data holds %s; name one of them or all", o.holdout, strings.Join(set.GPUNames(), ", "))
		}
		bar := newProgress(e, "leave-one-GPU-out", len(gpus))
		bar.Update(0)
		for i, g := range gpus {
			test, p, err := train.Holdout(ctx, all, h.Kind, set, g, h.Params, nil)
			if err != nil {
				return nil, fmt.Errorf("holding out %s: %w", g, err)
			}
			r := train.Score(test, p)
			r.Holdout = g
			reports = append(reports, r)
			bar.Update(i + 1)
		}
	default:
		p, err := train.Predict(m, set)
		if err != nil {
			return nil, err
		}
		if overlap := trainedOn(h, o.dirs); overlap != "" {
			fmt.Fprintf(e.stderr, "note: the model was trained on %s: these scores are in-sample, not a test\n", overlap)
		}
		reports = append(reports, train.Score(set, p))
	}
	for i := range reports {
		reports[i].Kind = h.Kind
	}
	return reports, nil
}

// trainedOn returns the given data sets the model was trained on, or "".
func trainedOn(h models.Header, dirs []string) string {
	var both []string
	for _, d := range dirs {
		a, _ := filepath.Abs(d)
		for _, ref := range h.Data {
			if b, _ := filepath.Abs(ref.Path); a == b {
				both = append(both, d)
			}
		}
	}
	return strings.Join(both, ", ")
}

func trainingData(h models.Header) string {
	var parts []string
	for _, d := range h.Data {
		parts = append(parts, fmt.Sprintf("%s (%d rows; %s; GPUs %s)", d.Path, d.Rows, sourceCounts(d.Sources), strings.Join(d.GPUs, ",")))
	}
	return strings.Join(parts, ", ")
}

// printReport writes a report as tables: one line per GPU and the total.
func printReport(w io.Writer, r train.Report) {
	how := "the saved model on this data"
	switch {
	case r.Folds > 0:
		how = fmt.Sprintf("%d-fold cross-validation grouped by %s", r.Folds, r.Grouping)
	case r.Holdout != "":
		how = fmt.Sprintf("trained on the other GPUs, %s held out", r.Holdout)
	}
	fmt.Fprintf(w, "%s %s, %s, %d rows (%s)\n", r.Kind, r.Task, how, r.Rows, dataSources(r.Data))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	rows := r.PerGPU
	if len(rows) != 1 { // with one GPU the total repeats it
		rows = append(append([]train.Scores(nil), r.PerGPU...), r.Overall)
	}
	if r.Task == models.Select {
		fmt.Fprintln(tw, "GPU\tinstances\taccuracy\tspeedup vs worst\tvs best fixed OC\tfixed OC\toracle share\tfixed OC share\t")
		for _, s := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.2fx\t%.2fx\t%s\t%.1f%%\t%.1f%%\t\n", gpuOrAll(s.GPU), s.Rows, 100*s.Accuracy,
				s.SpeedupOverWorst, s.SpeedupOverFixed, s.FixedOC, 100*s.OracleShare, 100*s.FixedShare)
		}
		tw.Flush()
		for _, s := range rows {
			printConfusion(w, s)
		}
		return
	}
	fmt.Fprintln(tw, "GPU\trows\tMAPE\tp50\tp90\tp95\tp99\tmax\tpick share\tproblems\t")
	for _, s := range rows {
		p := s.Percentiles
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.0f%%\t%.1f%%\t%d\t\n", gpuOrAll(s.GPU), s.Rows, s.MAPE,
			p["p50"], p["p90"], p["p95"], p["p99"], p["max"], 100*s.PickShare, s.Problems)
	}
	tw.Flush()
	fmt.Fprintln(w, "MAPE, p50-max: mean and percentiles of the absolute percentage error of the predicted time per step")
	fmt.Fprintln(w, "pick share: mean over the problems of best measured time / measured time of the variant predicted fastest")
	fmt.Fprintln(w, "problems: the picks pick share averages: one per stencil on the GPU (one in all for a Kernel Tuner kernel)")
}

func printConfusion(w io.Writer, s train.Scores) {
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
	tw.Flush()
	if s.NotRun > 0 {
		fmt.Fprintf(w, "%d predicted OCs did not run on their stencil (share 0)\n", s.NotRun)
	}
}

func printHoldoutTable(w io.Writer, reports []train.Report) {
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
	tw.Flush()
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
		parts = append(parts, r.Path+": "+sourceCounts(r.Sources))
	}
	return strings.Join(parts, "; ")
}
