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
//	go run ./bench/regmodel [-data GLOB,...] [-dims 3] [-folds 12] [-test GLOB,...] [-json]
//
// With -test, a model trained on all of -data is also scored on those data sets' rows (other
// stencils, measured apart): the named stencils' picks, say, against a model of the campaign's.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"smart"
	"smart/dataset"
	"smart/features"
	"smart/internal/rankcorr"
	"smart/models"
	"smart/models/kinds"
	"smart/models/train"

	"gonum.org/v1/gonum/stat"
)

func main() {
	data := flag.String("data", "data/measured/h100-sxm/campaign", "data sets whose rows carry the compiler's registers (globs, comma-separated)")
	dims := flag.Int("dims", 3, "the stencils' dimensions (2 or 3): the setting's columns differ")
	folds := flag.Int("folds", 12, "folds, grouped by stencil")
	test := flag.String("test", "", "data sets to score a model trained on all of -data on (globs, comma-separated)")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	flag.Parse()
	var testPatterns []string
	if *test != "" {
		testPatterns = strings.Split(*test, ",")
	}
	rep, err := run(context.Background(), strings.Split(*data, ","), testPatterns, *dims, *folds)
	if err != nil {
		fmt.Fprintln(os.Stderr, "regmodel:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintln(os.Stderr, "regmodel:", err)
			os.Exit(1)
		}
		return
	}
	rep.write(os.Stdout)
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

// Report is the two predictors on the same rows.
type Report struct {
	Dims     int     `json:"dims"`
	Rows     int     `json:"rows"`
	Stencils int     `json:"stencils"`
	Folds    int     `json:"folds"`
	Scores   []Score `json:"scores"` // the estimate, then the learned model held out
	// Test is the same on the -test rows, the learned model trained on all of -data.
	TestRows     int     `json:"test_rows,omitempty"`
	TestStencils int     `json:"test_stencils,omitempty"`
	Test         []Score `json:"test,omitempty"`
}

func (r *Report) write(w io.Writer) {
	fmt.Fprintf(w, "%d rows of %d %d-D stencils with the compiler's registers; the learned model held out in %d folds grouped by stencil\n", r.Rows, r.Stencils, r.Dims, r.Folds)
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

// run reads the rows of dims-D stencils with the compiler's registers, cross-validates the
// learned model and scores it and the estimate, and, with test, the same on test's rows.
func run(ctx context.Context, patterns, test []string, dims, k int) (*Report, error) {
	if dims != 2 && dims != 3 {
		return nil, fmt.Errorf("dims %d: give 2 or 3", dims)
	}
	d, estimate, regs, err := load(patterns, dims)
	if err != nil {
		return nil, err
	}
	params := map[string]string{"early_stop": "0"} // smart train's gbdt, as the runtime models'
	cv, err := train.CrossValidate(ctx, kinds.All(), "gbdt", &train.Set{Data: d}, k, 1, params, nil)
	if err != nil {
		return nil, err
	}
	rep := &Report{Dims: dims, Rows: d.Rows(), Stencils: len(distinct(d.Groups)), Folds: k, Scores: []Score{
		score("estimate (smart.Tuning.Usage)", estimate, regs, d.Groups),
		score("learned, held out", exps(cv.LnMs), regs, d.Groups),
	}}
	if len(test) > 0 {
		td, testEstimate, testRegs, err := load(test, dims)
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
		predicted, err := reg.PredictBatch(td.X)
		if err != nil {
			return nil, err
		}
		rep.TestRows, rep.TestStencils = td.Rows(), len(distinct(td.Groups))
		rep.Test = []Score{
			score("estimate (smart.Tuning.Usage)", testEstimate, testRegs, td.Groups),
			score("learned on -data", exps(predicted), testRegs, td.Groups),
		}
	}
	return rep, nil
}

// exps turns ln registers into registers.
func exps(ln []float64) []float64 {
	out := make([]float64, len(ln))
	for i, v := range ln {
		out[i] = math.Exp(v)
	}
	return out
}

// load reads the rows of dims-D stencils that carry the compiler's registers: their columns and
// ln(registers) (grouped by stencil), the estimate of each and the compiler's.
func load(patterns []string, dims int) (*models.Data, []float64, []float64, error) {
	dirs, err := dataset.Glob(patterns)
	if err != nil {
		return nil, nil, nil, err
	}
	d := &models.Data{Task: models.Runtime, Features: columnNames(dims)}
	var estimate, regs []float64
	for _, dir := range dirs {
		_, rows, err := dataset.ReadAll(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		stencils := map[string]*smart.Stencil{}
		for i, m := range rows {
			if m.Compiled == nil || m.Compiled.RegsPerThread <= 0 || m.StencilID == "" {
				continue
			}
			st := stencils[m.StencilID]
			if st == nil {
				if st, err = dataset.ReadStencil(dir, m.StencilID); err != nil {
					return nil, nil, nil, err
				}
				stencils[m.StencilID] = st
			}
			if st.Dims != dims {
				continue
			}
			x, est, err := columns(st, m.OC, m.Setting)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("data set %s, row %d: %w", dir, i+1, err)
			}
			d.X = append(d.X, x)
			d.Y = append(d.Y, math.Log(float64(m.Compiled.RegsPerThread)))
			d.Groups = append(d.Groups, m.StencilID)
			estimate = append(estimate, est)
			regs = append(regs, float64(m.Compiled.RegsPerThread))
		}
	}
	if d.Rows() == 0 {
		return nil, nil, nil, fmt.Errorf("no row of a %d-D stencil in %s carries the compiler's registers", dims, strings.Join(dirs, ", "))
	}
	return d, estimate, regs, nil
}

// columns are a variant's columns for the learned model and the estimate of its registers.
func columns(st *smart.Stencil, oc smart.Combination, s smart.Setting) ([]float64, float64, error) {
	sv, err := features.Stencil(st, smart.MaxMaxOrder)
	if err != nil {
		return nil, 0, err
	}
	set, err := features.Setting(st.Dims, oc, s)
	if err != nil {
		return nil, 0, err
	}
	use, err := features.Usage(st, oc, s)
	if err != nil {
		return nil, 0, err
	}
	t, err := smart.DecodeTuning(st.Dims, oc, s)
	if err != nil {
		return nil, 0, err
	}
	u := t.Usage(st)
	return slices.Concat(sv, set, use), float64(u.RegsPerThread + u.FusedRegs), nil
}

func columnNames(dims int) []string {
	return slices.Concat(features.StencilNames(smart.MaxMaxOrder), features.SettingNames(dims), features.UsageNames())
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
