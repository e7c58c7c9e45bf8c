// Command regmodel asks how much better than the register estimate (smart.Tuning.Usage: the
// values a thread keeps live plus the partial sums of fused steps) a model learned from the
// compiler's own reports could say how many registers a variant takes: the estimate feeds the
// occupancy and spill terms of the analytic model and the runtime models' usage columns, and it
// is far off on fused, retimed kernels. The compiler's reports are in every row measured since
// data set format smart-dataset/3 (regs), and compiling needs no GPU.
//
// A gbdt regressor learns ln(registers) from the stencil's columns, the setting's and the
// estimate's (features.Stencil, features.Setting, features.Usage), each stencil predicted by a
// fold that never saw it (folds grouped by stencil), and is set against the estimate on the same
// rows: Spearman over all rows and within each stencil, mean absolute percentage error, and the
// median of compiler over predicted.
//
// Usage:
//
//	go run ./bench/regmodel [-data GLOB,...] [-dims 3] [-folds 12] [-test GLOB,...] [-local] [-json]
//
// With -test, a model trained on all of -data is also scored on those data sets' rows (other
// stencils, measured apart): the named stencils' picks, say, against a model of the campaign's.
//
// With -local the question is the local memory a thread keeps (spilled registers and arrays
// indexed at run time), which makes a kernel several times slower: the model learns
// ln(1 + local bytes), and both it and the estimate (smart.Usage.LocalRegs) are scored as
// detectors of the variants that keep over 64 bytes, with what leaving those variants out would
// cost each stencil's fastest. With -o FILE it also writes the local-memory model trained on all
// of -data (task local: what smart predict's search reads to leave such variants out; the
// embedded ones are data/measured/GPU/models/local-Dd.smartmodel.gz, data/measured/models.json
// gives the command).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"smart"
	"smart/bench/internal/jsonout"
	"smart/dataset"
	"smart/internal/bit"
	"smart/internal/rankcorr"
	"smart/models"
	"smart/models/kinds"
	"smart/models/rows"
	"smart/models/train"
	"smart/predict"

	"gonum.org/v1/gonum/stat"
)

func main() {
	data := flag.String("data", "data/measured/h100-sxm/campaign", "data sets whose rows carry the compiler's registers (globs, comma-separated)")
	dims := flag.Int("dims", 3, "the stencils' dimensions (2 or 3): the setting's columns differ")
	folds := flag.Int("folds", 12, "folds, grouped by stencil")
	test := flag.String("test", "", "data sets to score a model trained on all of -data on (globs, comma-separated)")
	local := flag.Bool("local", false, "learn the local memory a thread keeps rather than its registers")
	out := flag.String("o", "", "with -local, write the model trained on all of -data to this file (.gz: compressed); it must not exist unless -force")
	force := flag.Bool("force", false, "overwrite -o")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	var testPatterns []string
	if *test != "" {
		testPatterns = strings.Split(*test, ",")
	}
	if *out != "" && !*local {
		fmt.Fprintln(os.Stderr, "regmodel: -o writes the local-memory model: give -local too")
		os.Exit(2)
	}
	if *out != "" && !*force {
		if _, err := os.Stat(*out); err == nil {
			fmt.Fprintf(os.Stderr, "regmodel: %s exists: give -force to overwrite it\n", *out)
			os.Exit(2)
		}
	}
	rep, err := run(context.Background(), strings.Split(*data, ","), testPatterns, *dims, *folds, *local)
	if err == nil && *out != "" {
		err = writeLocal(context.Background(), strings.Split(*data, ","), *dims, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "regmodel:", err)
		os.Exit(1)
	}
	jsonout.Report("regmodel:", *asJSON, rep, rep.write)
}

// Score is how one predictor of the registers does on the rows.
type Score struct {
	Name     string  `json:"name"`
	Spearman float64 `json:"spearman"` // over all rows
	// StencilSpearman is the median over the stencils of the Spearman within each.
	StencilSpearman float64 `json:"stencil_spearman"`
	MAPE            float64 `json:"mape_percent"`
	MedianRatio     float64 `json:"median_ratio"` // compiler over predicted
}

// Flags is how one predictor of the local memory tells the variants that keep over
// predict.LocalLimit bytes of it a thread.
type Flags struct {
	Name      string  `json:"name"`
	Flagged   int     `json:"flagged"` // rows it puts over predict.LocalLimit
	Local     int     `json:"local"`   // rows the compiler puts over predict.LocalLimit
	Both      int     `json:"both"`
	Precision float64 `json:"precision"` // Both / Flagged
	Recall    float64 `json:"recall"`    // Both / Local
}

// Report is the two predictors on the same rows: with -local, Flags and the cost of leaving the
// local variants out; else Scores.
type Report struct {
	Dims     int     `json:"dims"`
	Target   string  `json:"target"` // "registers" or "local bytes"
	Rows     int     `json:"rows"`
	Stencils int     `json:"stencils"`
	Folds    int     `json:"folds"`
	Scores   []Score `json:"scores,omitempty"` // the estimate, then the learned model held out
	Flags    []Flags `json:"flags,omitempty"`  // the same, as detectors of local memory
	// FastestLocal counts the stencils whose fastest variant keeps over predict.LocalLimit bytes;
	// WithoutLocal is the most, over the stencils, that their fastest variant keeping at most
	// that is slower than their fastest.
	FastestLocal int     `json:"fastest_local,omitempty"`
	WithoutLocal float64 `json:"without_local,omitempty"`
	// Test is the same on the -test rows, the learned model trained on all of -data.
	TestRows     int     `json:"test_rows,omitempty"`
	TestStencils int     `json:"test_stencils,omitempty"`
	Test         []Score `json:"test,omitempty"`
	TestFlags    []Flags `json:"test_flags,omitempty"`
}

func (r *Report) write(w io.Writer) {
	fmt.Fprintf(w, "%d rows of %d %d-D stencils with the compiler's registers; the learned model held out in %d folds grouped by stencil\n", r.Rows, r.Stencils, r.Dims, r.Folds)
	if r.Flags != nil {
		writeFlags(w, r.Flags)
		fmt.Fprintf(w, "the fastest variant keeps over %d bytes on %d of %d stencils; without those variants a stencil's fastest is at most %.3fx slower\n", predict.LocalLimit, r.FastestLocal, r.Stencils, r.WithoutLocal)
		if r.TestFlags != nil {
			fmt.Fprintf(w, "-test: %d rows of %d stencils, the learned model trained on all the rows above\n", r.TestRows, r.TestStencils)
			writeFlags(w, r.TestFlags)
		}
		return
	}
	fmt.Fprintf(w, "%-28s %9s %17s %8s %13s\n", "registers from", "Spearman", "within a stencil", "MAPE %", "compiler/it")
	for _, s := range r.Scores {
		fmt.Fprintf(w, "%-28s %9.3f %17.3f %8.1f %13.2f\n", s.Name, s.Spearman, s.StencilSpearman, s.MAPE, s.MedianRatio)
	}
	if r.Test != nil {
		fmt.Fprintf(w, "-test: %d rows of %d stencils, the learned model trained on all the rows above\n", r.TestRows, r.TestStencils)
		for _, s := range r.Test {
			fmt.Fprintf(w, "%-28s %9.3f %17.3f %8.1f %13.2f\n", s.Name, s.Spearman, s.StencilSpearman, s.MAPE, s.MedianRatio)
		}
	}
}

func writeFlags(w io.Writer, fs []Flags) {
	fmt.Fprintf(w, "%-34s %8s %8s %8s %10s %7s\n", fmt.Sprintf("over %d local bytes from", predict.LocalLimit), "flagged", "local", "both", "precision", "recall")
	for _, f := range fs {
		fmt.Fprintf(w, "%-34s %8d %8d %8d %10.3f %7.3f\n", f.Name, f.Flagged, f.Local, f.Both, f.Precision, f.Recall)
	}
}

// run reads the rows of dims-D stencils with the compiler's registers, cross-validates the
// learned model and scores it and the estimate, and, with test, the same on test's rows; with
// local, of the local memory rather than the registers.
func run(ctx context.Context, patterns, test []string, dims, k int, local bool) (*Report, error) {
	if dims != 2 && dims != 3 {
		return nil, fmt.Errorf("dims %d: give 2 or 3", dims)
	}
	r, err := load(patterns, dims, local)
	if err != nil {
		return nil, err
	}
	d := r.data
	params := map[string]string{"early_stop": "0"} // smart train's gbdt, as the runtime models'
	cv, err := train.CrossValidate(ctx, kinds.All(), "gbdt", &train.Set{Data: d}, k, 1, params, nil)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dims: dims, Target: "registers", Rows: d.Rows(), Stencils: len(distinct(d.Groups)), Folds: k}
	if local {
		rep.Target = "local bytes"
		rep.Flags = []Flags{
			flags("estimate (smart.Usage.LocalRegs)", r.estimate, r.actual),
			flags("learned, held out", exps1(cv.LnMs), r.actual),
		}
		rep.FastestLocal, rep.WithoutLocal = withoutLocal(r)
	} else {
		rep.Scores = []Score{
			score("estimate (smart.Tuning.Usage)", r.estimate, r.actual, d.Groups),
			score("learned, held out", exps(cv.LnMs), r.actual, d.Groups),
		}
	}
	if len(test) > 0 {
		tr, err := load(test, dims, local)
		if err != nil {
			return nil, err
		}
		fitted, _, err := train.Fit(ctx, kinds.All(), "gbdt", &train.Set{Data: d}, params, nil)
		if err != nil {
			return nil, err
		}
		reg, ok := fitted.(models.Regressor)
		if !ok {
			return nil, fmt.Errorf("gbdt trained a %T, not a Regressor", fitted)
		}
		td := tr.data
		predicted, err := reg.PredictBatch(td.X)
		if err != nil {
			return nil, err
		}
		rep.TestRows, rep.TestStencils = td.Rows(), len(distinct(td.Groups))
		if local {
			rep.TestFlags = []Flags{
				flags("estimate (smart.Usage.LocalRegs)", tr.estimate, tr.actual),
				flags("learned on -data", exps1(predicted), tr.actual),
			}
		} else {
			rep.Test = []Score{
				score("estimate (smart.Tuning.Usage)", tr.estimate, tr.actual, td.Groups),
				score("learned on -data", exps(predicted), tr.actual, td.Groups),
			}
		}
	}
	return rep, nil
}

// writeLocal trains the local-memory model on every row of patterns and saves it to path.
func writeLocal(ctx context.Context, patterns []string, dims int, path string) error {
	r, err := load(patterns, dims, true)
	if err != nil {
		return err
	}
	params := map[string]string{"early_stop": "0"}
	fitted, h, err := train.Fit(ctx, kinds.All(), "gbdt", &train.Set{Data: r.data, Inputs: inputs(dims), Refs: r.refs, Target: models.TargetLnLocalBytes}, params, nil)
	if err != nil {
		return err
	}
	if err := models.Save(path, h, fitted); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s: %d rows of %d %d-D stencils\n", path, r.data.Rows(), len(distinct(r.data.Groups)), dims)
	return nil
}

// exps1 turns ln(1 + bytes) into bytes.
func exps1(ln []float64) []float64 {
	out := make([]float64, len(ln))
	for i, v := range ln {
		out[i] = math.Expm1(v)
	}
	return out
}

// flags scores pred as a detector of the rows whose actual local memory exceeds predict.LocalLimit.
func flags(name string, pred, actual []float64) Flags {
	f := Flags{Name: name}
	for i := range actual {
		p, a := pred[i] > predict.LocalLimit, actual[i] > predict.LocalLimit
		f.Flagged += bit.Of(p)
		f.Local += bit.Of(a)
		f.Both += bit.Of(p && a)
	}
	if f.Flagged > 0 {
		f.Precision = float64(f.Both) / float64(f.Flagged)
	}
	if f.Local > 0 {
		f.Recall = float64(f.Both) / float64(f.Local)
	}
	return f
}

// withoutLocal counts the stencils whose fastest row keeps over predict.LocalLimit bytes of local memory,
// and returns the most that a stencil's fastest row keeping at most that is slower than its
// fastest: what leaving the local variants out of a search would cost, at worst.
func withoutLocal(r *rowsOf) (fastestLocal int, worst float64) {
	best, bestLean := map[string]float64{}, map[string]float64{}
	for i, g := range r.data.Groups {
		ms := r.ms[i]
		if b, ok := best[g]; !ok || ms < b {
			best[g] = ms
		}
		if b, ok := bestLean[g]; r.actual[i] <= predict.LocalLimit && (!ok || ms < b) {
			bestLean[g] = ms
		}
	}
	worst = 1
	for g, b := range best {
		lean, ok := bestLean[g]
		if !ok {
			worst = math.Inf(1)
			fastestLocal++
			continue
		}
		if lean > b {
			fastestLocal++
		}
		worst = max(worst, lean/b)
	}
	return fastestLocal, worst
}

// exps turns ln registers into registers.
func exps(ln []float64) []float64 {
	out := make([]float64, len(ln))
	for i, v := range ln {
		out[i] = math.Exp(v)
	}
	return out
}

// rowsOf are the rows load read: their columns and target grouped by stencil, and for each the
// estimate, the compiler's figure and the measured time; refs are the data sets they came from.
type rowsOf struct {
	data             *models.Data
	estimate, actual []float64
	ms               []float64
	refs             []models.DataRef
}

// inputs are the learned model's columns: the stencil's, the setting's and the estimate's
// (features.Stencil, features.Setting, features.Usage), built by package rows as predict builds
// them.
func inputs(dims int) models.Inputs {
	return models.Inputs{Dims: dims, MaxOrder: smart.MaxMaxOrder, Stencil: true, Setting: true, Usage: true}
}

// load reads the rows of dims-D stencils that carry the compiler's registers: their columns and
// ln(registers), or with local ln(1 + local bytes a thread), the estimate of each and the
// compiler's.
func load(patterns []string, dims int, local bool) (*rowsOf, error) {
	dirs, err := dataset.Glob(patterns)
	if err != nil {
		return nil, err
	}
	task := models.Runtime
	if local {
		task = models.Local
	}
	f, err := rows.New(inputs(dims))
	if err != nil {
		return nil, err
	}
	r := &rowsOf{data: &models.Data{Task: task, Features: f.Names()}}
	d := r.data
	for _, dir := range dirs {
		meta, rows, err := dataset.ReadAll(dir)
		if err != nil {
			return nil, err
		}
		ref := models.DataRef{Path: dir, Sources: map[string]int{}}
		for _, dev := range meta.Devices {
			if dev.GPU != "" && !slices.Contains(ref.GPUs, dev.GPU) {
				ref.GPUs = append(ref.GPUs, dev.GPU)
			}
			ref.Devices = append(ref.Devices, dev.Name)
		}
		stencils := map[string]*smart.Stencil{}
		for i, m := range rows {
			if m.Compiled == nil || m.Compiled.RegsPerThread <= 0 || m.StencilID == "" {
				continue
			}
			st := stencils[m.StencilID]
			if st == nil {
				if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
					return nil, err
				}
				stencils[m.StencilID] = st
			}
			if st.Dims != dims {
				continue
			}
			x, err := f.Row(st, m.OC, m.Setting, smart.GPU{})
			if err != nil {
				return nil, fmt.Errorf("data set %s, row %d: %w", dir, i+1, err)
			}
			t, err := smart.DecodeTuning(st.Dims, m.OC, m.Setting)
			if err != nil {
				return nil, fmt.Errorf("data set %s, row %d: %w", dir, i+1, err)
			}
			u := t.Usage(st)
			est, actual := float64(u.RegsPerThread+u.FusedRegs), float64(m.Compiled.RegsPerThread)
			y := math.Log(actual)
			if local {
				est, actual = float64(4*u.LocalRegs), float64(m.Compiled.LocalBytesPerThread)
				y = math.Log1p(actual)
			}
			d.X = append(d.X, x)
			d.Y = append(d.Y, y)
			d.Groups = append(d.Groups, m.StencilID)
			r.estimate = append(r.estimate, est)
			r.actual = append(r.actual, actual)
			r.ms = append(r.ms, m.TimeMs)
			ref.Rows++
			ref.Sources[string(m.Source)]++
		}
		if ref.Rows > 0 {
			r.refs = append(r.refs, ref)
		}
	}
	if d.Rows() == 0 {
		return nil, fmt.Errorf("no row of a %d-D stencil in %s carries the compiler's registers", dims, strings.Join(dirs, ", "))
	}
	return r, nil
}

// score sets predicted registers against the compiler's.
func score(name string, pred, regs []float64, groups []string) Score {
	s := Score{Name: name, Spearman: rankcorr.Spearman(pred, regs)}
	ratios := make([]float64, len(regs))
	for i := range regs {
		s.MAPE += math.Abs(pred[i]-regs[i]) / regs[i]
		ratios[i] = regs[i] / pred[i]
	}
	s.MAPE *= 100 / float64(len(regs))
	slices.Sort(ratios)
	s.MedianRatio = stat.Quantile(0.5, stat.Empirical, ratios, nil)
	var within []float64
	for _, g := range distinct(groups) {
		var p, r []float64
		for i := range groups {
			if groups[i] == g {
				p, r = append(p, pred[i]), append(r, regs[i])
			}
		}
		if c := rankcorr.Spearman(p, r); !math.IsNaN(c) {
			within = append(within, c)
		}
	}
	slices.Sort(within)
	if len(within) > 0 {
		s.StencilSpearman = stat.Quantile(0.5, stat.Empirical, within, nil)
	}
	return s
}

func distinct(groups []string) []string {
	out := slices.Clone(groups)
	slices.Sort(out)
	return slices.Compact(out)
}
