package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/dataset"
	"smart/features"
	"smart/models"
	"smart/models/kinds"
	"smart/models/roofline"
	"smart/models/rows"
)

func TestLoadRuntime(t *testing.T) {
	dir := synthDataSet(t, 12, []string{"A100-40GB", "V100"}, 1)
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Concat(features.StencilNames(4), features.SettingNames(3), features.GPUNames())
	if !slices.Equal(set.Data.Features, want) {
		t.Errorf("columns %v\nwant %v", set.Data.Features, want)
	}
	_, rows, _ := dataset.ReadAll(dir)
	if set.Data.Rows() != len(rows) || set.Refs[0].Rows != len(rows) || set.Refs[0].Sources["simulated"] != len(rows) {
		t.Errorf("%d rows, ref %+v; the data set has %d", set.Data.Rows(), set.Refs[0], len(rows))
	}
	for i, s := range set.Samples {
		if math.Abs(set.Data.Y[i]-math.Log(s.TimeMs)) > 1e-12 || set.Data.Groups[i] != s.Group {
			t.Fatalf("row %d: target %v for time %v", i, set.Data.Y[i], s.TimeMs)
		}
		st := set.Stencils[s.Group]
		f, _ := features.Stencil(st, 4)
		if !slices.Equal(set.Data.X[i][:len(f)], f) {
			t.Fatalf("row %d: stencil columns differ from features.Stencil", i)
		}
	}
	if got := set.GPUNames(); !slices.Equal(got, []string{"A100-40GB", "V100"}) {
		t.Errorf("GPUs %v", got)
	}
	tensor, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime, Tensor: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tensor.Data.Features) != len(want)+729 || !strings.HasPrefix(tensor.Data.Features[len(features.StencilNames(4))], "tensor_") {
		t.Errorf("tensor columns missing: %d columns", len(tensor.Data.Features))
	}
}

// TestAnalyticColumn: measured data gets the analytic model's time as a column; simulated data
// (whose times are that model's) does not.
func TestAnalyticColumn(t *testing.T) {
	dir := synthDataSetFrom(t, 4, []string{"A100-40GB"}, 8, smart.Measured)
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(set.Data.Features, roofline.FeatureName)
	if col < 0 || set.Inputs.Analytic != rows.AnalyticStencil || set.Data.Features[col+1] != "roofline_ok" {
		t.Fatalf("columns %v, analytic %q", set.Data.Features, set.Inputs.Analytic)
	}
	ok := 0
	for i, s := range set.Samples {
		tu, err := smart.DecodeTuning(3, s.OC, s.Setting)
		if err != nil {
			t.Fatal(err)
		}
		want, err := roofline.Feature(set.Stencils[s.Group], tu, set.GPUs[s.GPU])
		if err != nil {
			if set.Data.X[i][col+1] != 0 {
				t.Fatalf("row %d: the model cannot run the variant (%v) but roofline_ok is 1", i, err)
			}
			continue
		}
		ok++
		if set.Data.X[i][col] != want || set.Data.X[i][col+1] != 1 {
			t.Fatalf("row %d: analytic column %v, roofline.Feature %v", i, set.Data.X[i][col], want)
		}
	}
	if ok == 0 {
		t.Error("the analytic model ran no variant")
	}
	if off, _ := Load(context.Background(), []string{dir}, Options{Task: models.Runtime, NoAnalytic: true}); slices.Contains(off.Data.Features, roofline.FeatureName) || off.Inputs.Usage {
		t.Error("NoAnalytic kept the column or the usage columns")
	}
	// Beside it, the variant's estimated usage; simulated data has neither.
	if !set.Inputs.Usage || !slices.Contains(set.Data.Features, features.UsageNames()[0]) {
		t.Errorf("measured data without the usage columns: %v", set.Data.Features)
	}
	sim, err := Load(context.Background(), []string{synthDataSet(t, 4, []string{"A100-40GB"}, 2)}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	if sim.Inputs.Usage || sim.Inputs.Analytic != "" {
		t.Errorf("simulated data got inputs %+v", sim.Inputs)
	}
}

// TestTargetOverAnalytic: a runtime set of measured stencils learns ln ms less the analytic
// model's ln ms where that model answered, when asked; its out-of-fold predictions and the
// saved model's come back in ln ms; simulated data and unknown targets are refused.
func TestTargetOverAnalytic(t *testing.T) {
	dir := synthDataSetFrom(t, 6, []string{"A100-40GB"}, 8, smart.Measured)
	plain, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime, Target: models.TargetLnOverAnalytic})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Target != models.TargetLnMs || set.Target != models.TargetLnOverAnalytic {
		t.Fatalf("targets %q and %q; want %q by default and %q asked", plain.Target, set.Target, models.TargetLnMs, models.TargetLnOverAnalytic)
	}
	n := len(set.Data.Features)
	anchored := 0
	for i, row := range set.Data.X {
		want := math.Log(set.Samples[i].TimeMs)
		if row[n-1] == 1 {
			want -= row[n-2]
			anchored++
		}
		if math.Abs(set.Data.Y[i]-want) > 1e-12 || plain.Data.Y[i] != math.Log(set.Samples[i].TimeMs) {
			t.Fatalf("row %d: target %v, want %v (plain %v)", i, set.Data.Y[i], want, plain.Data.Y[i])
		}
	}
	if anchored == 0 {
		t.Fatal("the analytic model answered no row")
	}
	params := map[string]string{"rounds": "30"}
	p, err := CrossValidate(context.Background(), kinds.All(), "gbdt", set, 3, 1, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, h, err := Fit(context.Background(), kinds.All(), "gbdt", set, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Target != models.TargetLnOverAnalytic {
		t.Errorf("header target %q", h.Target)
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := models.Save(path, h, f); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, kinds.All())
	if err != nil {
		t.Fatal(err)
	}
	raw := f.(models.Regressor)
	for i, row := range set.Data.X {
		v, _ := raw.Predict(row)
		ms, _ := m.Regressor.Predict(row)
		if want := math.Exp(v + models.AnalyticAnchor(row)); math.Abs(ms-want) > 1e-9*want {
			t.Fatalf("row %d: the saved model predicts %v ms; want %v", i, ms, want)
		}
	}
	// Out of fold, the predictions are ln ms too: fold 0's rows as a model of the other folds,
	// saved and loaded, predicts them.
	var in, out []int
	for i, fold := range p.Fold {
		if fold == 0 {
			out = append(out, i)
		} else {
			in = append(in, i)
		}
	}
	f0, h0, err := Fit(context.Background(), kinds.All(), "gbdt", set.Subset(in), params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.Save(path, h0, f0); err != nil {
		t.Fatal(err)
	}
	m0, err := models.Load(path, kinds.All())
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range out {
		ms, _ := m0.Regressor.Predict(set.Data.X[i])
		if math.Abs(p.LnMs[i]-math.Log(ms)) > 1e-9 {
			t.Fatalf("row %d: out-of-fold ln ms %v; the fold's model predicts %v", i, p.LnMs[i], math.Log(ms))
		}
	}
	sim := synthDataSet(t, 4, []string{"A100-40GB"}, 2)
	for _, tc := range []struct{ dir, target, want string }{
		{sim, models.TargetLnOverAnalytic, "needs rows that carry the analytic model's time"},
		{dir, "ms", `unknown target "ms"`},
	} {
		if _, err := Load(context.Background(), []string{tc.dir}, Options{Task: models.Runtime, Target: tc.target}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("target %s: %v; want %q", tc.target, err, tc.want)
		}
	}
}

func TestLoadSelect(t *testing.T) {
	dir := synthDataSet(t, 10, []string{"A100-40GB", "V100"}, 2)
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Select})
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := dataset.ReadLabels(dir)
	if set.Data.Rows() != len(labels.Instances) || set.Data.Classes != len(labels.Classes) || len(set.Classes) != len(labels.Classes) {
		t.Fatalf("%d rows of %d classes; labels have %d instances of %d classes", set.Data.Rows(), set.Data.Classes, len(labels.Instances), len(labels.Classes))
	}
	// Two GPUs: the GPU's features are columns, so instances of one stencil differ.
	if !slices.Contains(set.Data.Features, "bandwidth_gbs") {
		t.Error("GPU features missing from a two-GPU selection matrix")
	}
	for i, s := range set.Samples {
		best := math.Inf(1)
		for _, v := range s.Times {
			best = min(best, v)
		}
		if best != s.TimeMs {
			t.Fatalf("row %d: best time %v, label says %v", i, best, s.TimeMs)
		}
		if set.Classes[int(set.Data.Y[i])].OC != labelOf(labels, s) {
			t.Fatalf("row %d: class %d does not match labels.json", i, int(set.Data.Y[i]))
		}
	}
	one := synthDataSet(t, 10, []string{"A100-40GB"}, 2)
	single, err := Load(context.Background(), []string{one}, Options{Task: models.Select})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(single.Data.Features, "bandwidth_gbs") {
		t.Error("a one-GPU selection matrix has GPU columns")
	}
}

func labelOf(l *dataset.Labels, s Sample) smart.Combination {
	for _, in := range l.Instances {
		if in.StencilID == s.Group && in.GPU == s.GPU {
			return in.Class
		}
	}
	return 255
}

func TestLoadErrors(t *testing.T) {
	dir := synthDataSet(t, 5, []string{"A100-40GB"}, 3)
	failed := filepath.Join(t.TempDir(), "failed")
	w, err := dataset.Create(failed, dataset.Meta{Sources: []smart.Source{smart.Simulated},
		Devices: []dataset.Device{{GPU: "A100-40GB", Name: "test"}}, Params: dataset.StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	sts, _ := dataset.RandomStencils(1, 3, 1, 1)
	w.AddStencil(sts[0])
	if err := w.Append(smart.Measurement{StencilID: sts[0].ID(), GPU: "A100-40GB", OC: 0, Setting: smart.Setting{"bx": 32, "by": 1, "bz": 1, "shared": 0, "const": 0},
		Status: smart.StatusLaunchError, Source: smart.Simulated}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	empty := filepath.Join(t.TempDir(), "empty")
	w, err = dataset.Create(empty, dataset.Meta{Sources: []smart.Source{smart.Simulated},
		Devices: []dataset.Device{{GPU: "A100-40GB", Name: "test"}}, Params: dataset.StencilParams()})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	// A data set that gives no row names nothing the model was trained on.
	if set, err := Load(context.Background(), []string{dir, failed}, Options{Task: models.Runtime, Dims: 3}); err != nil || len(set.Refs) != 1 || set.Refs[0].Path != dir {
		t.Errorf("refs of a set with a rowless data set: %v, %+v; want only %s", err, set, dir)
	}
	tests := []struct {
		name string
		dirs []string
		opt  Options
		want string
	}{
		{"missing", []string{filepath.Join(dir, "nope")}, Options{Task: models.Runtime}, "not a data set"},
		{"none", nil, Options{Task: models.Runtime}, "no data set"},
		{"model of other dims", []string{dir}, Options{Task: models.Runtime, Inputs: &models.Inputs{Dims: 2, Stencil: true}}, "2-D"},
		{"model of other kernel", []string{dir}, Options{Task: models.Runtime, Inputs: &models.Inputs{Kernel: "conv"}}, "kernel conv"},
		{"other classes", []string{dir}, Options{Task: models.Select, Classes: []models.Class{{OC: 1}, {OC: 2}}}, "the model predicts"},
		{"dims 4", []string{dir}, Options{Task: models.Runtime, Dims: 4}, "2-D or 3-D"},
		{"no rows of those dims", []string{dir}, Options{Task: models.Runtime, Dims: 2}, "no rows of 2-D stencils"},
		{"no successful row", []string{failed}, Options{Task: models.Runtime}, "no row ran successfully"},
		{"no successful row to score", []string{failed}, Options{Task: models.Runtime, Inputs: &models.Inputs{Dims: 3, Stencil: true}}, "no row ran successfully"},
		{"empty", []string{empty}, Options{Task: models.Runtime}, empty + ": no rows;"},
		{"empty, to score", []string{empty}, Options{Task: models.Select, Dims: 3, Inputs: &models.Inputs{Dims: 3, Stencil: true}}, empty + ": no rows;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(context.Background(), tc.dirs, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestCrossValidate runs grouped 5-fold cross-validation of gbdt on both tasks of a synthetic
// data set whose cost model is learnable: the models must beat simple baselines.
func TestCrossValidate(t *testing.T) {
	dir := synthDataSet(t, 60, []string{"A100-40GB", "V100"}, 4)
	k := kinds.All()
	rt, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	p, err := CrossValidate(context.Background(), k, "gbdt", rt, 5, 1, map[string]string{"rounds": "150", "min_data_in_leaf": "5"}, func(d int) { done = d })
	if err != nil {
		t.Fatal(err)
	}
	if done != 5 {
		t.Errorf("progress reached %d of 5 folds", done)
	}
	fold := map[string]int{}
	for i, g := range rt.Data.Groups {
		if f, ok := fold[g]; ok && f != p.Fold[i] {
			t.Fatalf("stencil %s in folds %d and %d", g, f, p.Fold[i])
		}
		fold[g] = p.Fold[i]
	}
	r := Score(rt, p)
	// Times span about 50x; predicting the mean would be off by far more than 30%.
	if s := r.Overall.RuntimeScores; s.MAPE > 30 || s.PickShare > 1 || s.PickShare < 0.5 || s.Percentiles["p50"] > s.Percentiles["p90"] {
		t.Errorf("runtime scores %+v", s)
	}
	if len(r.PerGPU) != 2 || r.PerGPU[0].Rows+r.PerGPU[1].Rows != rt.Data.Rows() {
		t.Errorf("per-GPU rows %+v", r.PerGPU)
	}
	// The interval holds, per stencil, about 80% of the out-of-fold errors: below its lower
	// bound and above its upper one lie at most 10% of the stencils' weight each.
	iv := r.Interval
	if iv == nil || iv.Stencils != 60 || iv.Rows != rt.Data.Rows() || iv.LogLo >= 0 || iv.LogHi <= 0 {
		t.Fatalf("interval %+v; want one over 60 stencils and %d rows around 0", iv, rt.Data.Rows())
	}
	rows := map[string][]float64{}
	for i, smp := range rt.Samples {
		rows[smp.Group] = append(rows[smp.Group], math.Log(smp.TimeMs)-p.LnMs[i])
	}
	var below, above float64
	for _, rs := range rows {
		for _, e := range rs {
			if e < iv.LogLo {
				below += 1 / float64(len(rs))
			}
			if e > iv.LogHi {
				above += 1 / float64(len(rs))
			}
		}
	}
	if below > 0.1*60 || above > 0.1*60 || below+above < 0.1*60 {
		t.Errorf("stencils' weight below the interval %.2f, above %.2f, of 60; want at most 6 each and about 12 together", below, above)
	}
	r.Folds = 5
	if m := r.Summary(); m.Interval == nil || m.Interval.LogLo != iv.LogLo || !strings.Contains(m.Interval.From, "5-fold cross-validation on 60 stencils") {
		t.Errorf("the header's interval %+v; want the report's, from the 5 folds", m.Interval)
	}
	if r.Folds = 0; r.Summary().Interval != nil {
		t.Error("a saved model scored on data it may have seen records an interval")
	}

	sel, err := Load(context.Background(), []string{dir}, Options{Task: models.Select})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := CrossValidate(context.Background(), k, "gbdt", sel, 5, 1, map[string]string{"rounds": "60", "min_data_in_leaf": "3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := Score(sel, ps).Overall.SelectScores
	counts := make([]int, sel.Data.Classes)
	total := 0
	for i, row := range rs.Confusion {
		for _, c := range row {
			counts[i] += c
			total += c
		}
	}
	majority := float64(slices.Max(counts)) / float64(total)
	if total != sel.Data.Rows() || rs.Accuracy <= majority {
		t.Errorf("accuracy %.3f does not beat the majority class %.3f (%d instances)", rs.Accuracy, majority, total)
	}
	if rs.OracleShare > 1 || rs.OracleShare < rs.FixedShare || rs.SpeedupOverWorst < 1 {
		t.Errorf("selection scores %+v", rs)
	}
}

// TestScoreGolden checks the metrics on a hand-made set whose values are computed by hand.
func TestScoreGolden(t *testing.T) {
	a, b := smart.Combination(0), smart.Combination(smart.ST)
	set := &Set{
		Data:    &models.Data{Task: models.Select, Classes: 2, X: make([][]float64, 3), Y: []float64{0, 1, 1}},
		Classes: []models.Class{{OC: a, Members: []smart.Combination{a}}, {OC: b, Members: []smart.Combination{b}}},
		Samples: []Sample{
			{Group: "s1", GPU: "G", Times: map[smart.Combination]float64{a: 1, b: 2}},
			{Group: "s2", GPU: "G", Times: map[smart.Combination]float64{a: 4, b: 2}},
			{Group: "s3", GPU: "H", Times: map[smart.Combination]float64{a: 3, b: 1}},
		},
	}
	p := &Predictions{Proba: [][]float64{{0.9, 0.1}, {0.6, 0.4}, {0.2, 0.8}}, Fixed: []smart.Combination{a, a, a}}
	r := Score(set, p)
	s := r.Overall.SelectScores
	// Predictions: a (right), a (wrong: b is best), b (right).
	if math.Abs(s.Accuracy-2.0/3) > 1e-12 {
		t.Errorf("accuracy %v, want 2/3", s.Accuracy)
	}
	if want := [][]int{{1, 0}, {1, 1}}; !slices.EqualFunc(s.Confusion, want, slices.Equal) {
		t.Errorf("confusion %v, want %v", s.Confusion, want)
	}
	// Shares best/predicted: 1, 2/4, 1; fixed OC a: 1, 2/4, 1/3.
	if math.Abs(s.OracleShare-2.5/3) > 1e-12 || math.Abs(s.FixedShare-(1+0.5+1.0/3)/3) > 1e-12 {
		t.Errorf("oracle share %v, fixed share %v", s.OracleShare, s.FixedShare)
	}
	// Worst/predicted: 2, 1, 3; fixed/predicted: 1, 1, 3.
	if math.Abs(s.SpeedupOverWorst-math.Cbrt(6)) > 1e-12 || math.Abs(s.SpeedupOverFixed-math.Cbrt(3)) > 1e-12 {
		t.Errorf("speedups %v over worst, %v over fixed", s.SpeedupOverWorst, s.SpeedupOverFixed)
	}
	if len(r.PerGPU) != 2 || r.PerGPU[1].GPU != "H" || r.PerGPU[1].SelectScores.Accuracy != 1 {
		t.Errorf("per GPU %+v", r.PerGPU)
	}

	rt := &Set{
		Data: &models.Data{Task: models.Runtime},
		Samples: []Sample{
			{Group: "s1", GPU: "G", TimeMs: 1}, {Group: "s1", GPU: "G", TimeMs: 2},
			{Group: "s2", GPU: "G", TimeMs: 4}, {Group: "s2", GPU: "G", TimeMs: 8},
		},
	}
	rt.Data.X = make([][]float64, 4)
	// Predicted 1.1, 1.0 (picks the 2 ms variant of s1), 5, 8 (picks 4 ms: right).
	lp := &Predictions{LnMs: []float64{math.Log(1.1), math.Log(1), math.Log(5), math.Log(8)}}
	rr := Score(rt, lp).Overall.RuntimeScores
	// APE: 10%, 50%, 25%, 0%.
	if math.Abs(rr.MAPE-21.25) > 1e-9 || math.Abs(rr.Percentiles["p50"]-17.5) > 1e-9 || math.Abs(rr.Percentiles["max"]-50) > 1e-9 {
		t.Errorf("MAPE %v, percentiles %v", rr.MAPE, rr.Percentiles)
	}
	if rr.Problems != 2 || math.Abs(rr.PickShare-0.75) > 1e-12 {
		t.Errorf("pick share %v over %d problems, want 0.75 over 2", rr.PickShare, rr.Problems)
	}
	// A stencil on two GPUs is two problems: s1 on H (3 ms predicted 0.5, picked; 2 ms predicted
	// 2) adds a share of 2/3, where one problem across GPUs would have scored s1 by its G rows'
	// best, 1 ms, against H's pick.
	rt.Samples = append(rt.Samples, Sample{Group: "s1", GPU: "H", TimeMs: 3}, Sample{Group: "s1", GPU: "H", TimeMs: 2})
	rt.Data.X = make([][]float64, 6)
	lp.LnMs = append(lp.LnMs, math.Log(0.5), math.Log(2))
	rr = Score(rt, lp).Overall.RuntimeScores
	if want := (0.5 + 1 + 2.0/3) / 3; rr.Problems != 3 || math.Abs(rr.PickShare-want) > 1e-12 {
		t.Errorf("pick share %v over %d problems, want %v over 3", rr.PickShare, rr.Problems, want)
	}
}

// TestFitSaveLoad trains on a set, saves, loads and predicts the set again through Predict and
// through the Evaluator: all three agree.
func TestFitSaveLoad(t *testing.T) {
	dir := synthDataSet(t, 15, []string{"A100-40GB", "V100"}, 5)
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"gbdt", "knn"} {
		m := savedModel(t, set, kind, map[string]string{})
		again, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime, Inputs: m.Header.Inputs})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Predict(m, again)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := NewEvaluator(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			s := set.Samples[i]
			meas, err := ev.Evaluate(context.Background(), smart.Query{Stencil: set.Stencils[s.Group], OC: s.OC, Setting: s.Setting, GPU: s.GPU})
			if err != nil {
				t.Fatal(err)
			}
			if meas.Source != smart.Predicted || !meas.OK() || math.Abs(math.Log(meas.TimeMs)-p.LnMs[i]) > 1e-9 {
				t.Fatalf("%s row %d: evaluator %+v, Predict %v", kind, i, meas, math.Exp(p.LnMs[i]))
			}
			// The rows it learned of this GPU were simulated, and the time says so.
			if want := "; its rows of " + s.GPU + " are simulated"; !strings.HasSuffix(meas.Device, want) {
				t.Errorf("%s: a time on %s from simulated rows says %q", kind, s.GPU, meas.Device)
			}
		}
		s := set.Samples[0]
		if meas, err := ev.Evaluate(context.Background(), smart.Query{Stencil: set.Stencils[s.Group], OC: s.OC, Setting: s.Setting, GPU: "T4"}); err != nil || !strings.HasSuffix(meas.Device, "; no rows of T4") {
			t.Errorf("%s: a time on a GPU the model never saw says %q (%v)", kind, meas.Device, err)
		}
		if m.Header.Data[0].Sources["simulated"] != set.Data.Rows() || !slices.Equal(m.Header.Data[0].GPUs, []string{"A100-40GB", "V100"}) {
			t.Errorf("%s: header data %+v", kind, m.Header.Data)
		}
		// The header keeps the range of the stencils it learned, through the file.
		r := m.Header.Range
		lo, hi := smart.MaxMaxOrder, 0
		for _, st := range set.Stencils {
			lo, hi = min(lo, st.Order()), max(hi, st.Order())
			if r != nil && len(r.Outside(st)) > 0 {
				t.Errorf("%s: stencil %s lies outside the range it was trained on: %q", kind, st.Name, r.Outside(st))
			}
		}
		if r == nil || r.Stencils != 15 || r.Orders != [2]int{lo, hi} || !slices.Equal(r.GPUs, []string{"A100-40GB", "V100"}) {
			t.Errorf("%s: header range %+v; want 15 stencils of orders %d-%d on A100-40GB and V100", kind, r, lo, hi)
		}
		// A GPU of several data sets is named once in what the evaluator says of its times.
		m.Header.Data = append(m.Header.Data, m.Header.Data[0])
		if ev, err = NewEvaluator(m, nil); err != nil {
			t.Fatal(err)
		}
		if want := "model " + kind + " trained on A100-40GB,V100"; ev.about != want {
			t.Errorf("%s: the evaluator says %q; want %q", kind, ev.about, want)
		}
	}
}

func TestHoldout(t *testing.T) {
	dir := synthDataSet(t, 30, []string{"A100-40GB", "V100", "P100"}, 6)
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	test, p, err := Holdout(context.Background(), kinds.All(), "gbdt", set, "V100", map[string]string{"rounds": "100"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := Score(test, p)
	if len(r.PerGPU) != 1 || r.PerGPU[0].GPU != "V100" || r.Overall.Rows != test.Data.Rows() {
		t.Fatalf("held-out report %+v", r)
	}
	// V100's bandwidth lies between the P100's and the A100's: the trees cannot extrapolate but
	// must land in the right range.
	if s := r.Overall.RuntimeScores; s.MAPE > 60 || s.PickShare < 0.5 {
		t.Errorf("held-out scores %+v", s)
	}
	if _, _, err := Holdout(context.Background(), kinds.All(), "gbdt", set, "H100", nil, nil); err == nil || !strings.Contains(err.Error(), "no rows") {
		t.Errorf("unknown GPU: %v", err)
	}
}

// TestLoadSelectStaleLabels: rows appended to a labelled data set (smart tune --record, a
// resumed smart bench) make its labels.json stale; the selection matrix refuses it, naming both
// counts and the fix, until the set is labelled again. The runtime matrix needs no labels.
func TestLoadSelectStaleLabels(t *testing.T) {
	tests := []struct {
		name    string
		appends int
		relabel bool
		opt     Options
		want    string // in the error; "" for none
	}{
		{"fresh labels", 0, false, Options{Task: models.Select}, ""},
		{"fresh labels, dims kept", 0, false, Options{Task: models.Select, Dims: 3}, ""},
		{"rows appended", 3, false, Options{Task: models.Select}, "%[3]s: labels.json was computed from %[1]d rows, but the data set now holds %[2]d"},
		{"rows appended, dims kept", 3, false, Options{Task: models.Select, Dims: 3}, "%[3]s: labels.json was computed from %[1]d rows, but the data set now holds %[2]d"},
		{"rows appended, runtime", 3, false, Options{Task: models.Runtime}, ""},
		{"rows appended and labelled again", 3, true, Options{Task: models.Select}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := synthDataSet(t, 6, []string{"A100-40GB"}, 4)
			labels, err := dataset.ReadLabels(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.appends > 0 {
				appendRows(t, dir, tc.appends)
			}
			if tc.relabel {
				if _, err := dataset.LabelWith(context.Background(), dir, dataset.LabelOptions{Classes: 3}); err != nil {
					t.Fatal(err)
				}
			}
			_, err = Load(context.Background(), []string{dir}, tc.opt)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			want := fmt.Sprintf(tc.want, labels.Rows, labels.Rows+tc.appends, dir)
			if err == nil || err.Error() != want {
				t.Errorf("error %v; want %q", err, want)
			}
			// The facts the command line's advice is made of (cmd/smart: smart dataset label DIR).
			var le *LabelsError
			if !errors.As(err, &le) || le.Dir != dir || le.Labelled != labels.Rows || le.Rows != labels.Rows+tc.appends {
				t.Errorf("error %#v; want a *LabelsError of %s, %d and %d rows", err, dir, labels.Rows, labels.Rows+tc.appends)
			}
		})
	}
}

// appendRows appends n new ok rows to the data set in dir, as smart tune --record does.
func appendRows(t *testing.T, dir string, n int) {
	t.Helper()
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	w, _, err := dataset.OpenWriter(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for added := 0; added < n; {
		m := rows[0]
		m.Setting = randomSetting(3, m.OC, rng)
		if w.Has(m) {
			continue
		}
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
		added++
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// firstColumn is a regressor that predicts a row's first feature and counts its batches; after
// stopAfter batches it calls stop (a context's cancel).
type firstColumn struct {
	batches   *int
	stopAfter int
	stop      func()
}

func (f firstColumn) Hyper() any                     { return nil }
func (f firstColumn) MarshalBinary() ([]byte, error) { return nil, nil }
func (f firstColumn) Predict(row []float64) (float64, error) {
	return row[0], nil
}
func (f firstColumn) PredictBatch(rows [][]float64) ([]float64, error) {
	*f.batches++
	if *f.batches == f.stopAfter {
		f.stop()
	}
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r[0]
	}
	return out, nil
}

// TestCrossValidatePredictsInChunks checks that cross-validation predicts a fold's rows in
// chunks, in order, and stops between chunks once the context is cancelled: a model slow per
// row (golearn's knn) then heeds Ctrl-C within seconds rather than at the end of a fold.
func TestCrossValidatePredictsInChunks(t *testing.T) {
	dir := synthDataSet(t, 60, []string{"A100-40GB", "V100"}, 4)
	rt, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	batches := 0
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fc := firstColumn{batches: &batches, stopAfter: -1, stop: cancel}
	k := models.Kinds{"first": {Tasks: []models.Task{models.Runtime}, Train: func(context.Context, *models.Data, *models.Data, map[string]string, func(models.Round)) (models.Fitted, error) {
		return fc, nil
	}}}
	p, err := CrossValidate(ctx, k, "first", rt, 5, 1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rt.Data.X {
		if p.LnMs[i] != row[0] {
			t.Fatalf("row %d predicted %v, want its first feature %v", i, p.LnMs[i], row[0])
		}
	}
	if n := rt.Data.Rows(); batches < n/chunk || n/5 <= chunk {
		t.Fatalf("%d rows in %d batches; want folds of more than %d rows, in chunks", n, batches, chunk)
	}

	batches, fc.stopAfter = 0, 1
	if _, err := CrossValidate(ctx, k, "first", rt, 5, 1, nil, nil); !errors.Is(err, context.Canceled) || batches != 1 {
		t.Errorf("cancelled during the first chunk: %v after %d batches; want context.Canceled after 1", err, batches)
	}
}

// TestLoadSelectGivenLabels: a data set without labels.json joins a selection matrix with labels
// computed in memory from another's classes, its instances labelled by them.
func TestLoadSelectGivenLabels(t *testing.T) {
	sim := synthDataSet(t, 6, []string{"A100-40GB"}, 4)
	meas := synthDataSetFrom(t, 3, []string{"H100-SXM"}, 9, smart.Measured)
	if err := os.Remove(filepath.Join(meas, dataset.LabelsFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), []string{sim, meas}, Options{Task: models.Select}); !errors.As(err, new(*LabelsError)) {
		t.Fatalf("no labels for %s: %v; want a *LabelsError", meas, err)
	}
	simLabels, err := dataset.ReadLabels(sim)
	if err != nil {
		t.Fatal(err)
	}
	measLabels, err := dataset.ComputeLabels(context.Background(), meas, dataset.LabelOptions{Given: simLabels.Classes})
	if err != nil {
		t.Fatal(err)
	}
	set, err := Load(context.Background(), []string{sim, meas}, Options{Task: models.Select, Labels: map[string]*dataset.Labels{meas: measLabels}})
	if err != nil {
		t.Fatal(err)
	}
	if set.Data.Rows() != 9 || len(set.Classes) != len(simLabels.Classes) {
		t.Fatalf("%d rows, %d classes; want 6 + 3 rows in the simulated set's %d classes", set.Data.Rows(), len(set.Classes), len(simLabels.Classes))
	}
	for i, s := range set.Samples[6:] {
		in := measLabels.Instances[i]
		if s.GPU != "H100-SXM" || s.OC != in.Best || set.Classes[int(set.Data.Y[6+i])].OC != in.Class {
			t.Errorf("row %d: %s, best %s, class %s; want %s's instance %+v", 6+i, s.GPU, s.OC, set.Classes[int(set.Data.Y[6+i])].OC, meas, in)
		}
	}
	if got := set.Refs[1].Sources[string(smart.Measured)]; got == 0 {
		t.Errorf("the measured set's rows are not counted as measured: %+v", set.Refs[1])
	}
}

// TestCrossValidateFolds: with folds that do not cover the set (two stencils held out, one at a
// time), each fold's model is trained on every other row, the rows of no fold keep Fold -1, and
// a row in two folds is an error.
func TestCrossValidateFolds(t *testing.T) {
	dir := synthDataSet(t, 20, []string{"A100-40GB"}, 4)
	rt, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	var trainedOn []int
	batches := 0
	k := models.Kinds{"first": {Tasks: []models.Task{models.Runtime}, Train: func(_ context.Context, tr *models.Data, _ *models.Data, _ map[string]string, _ func(models.Round)) (models.Fitted, error) {
		trainedOn = append(trainedOn, tr.Rows())
		return firstColumn{batches: &batches, stopAfter: -1}, nil
	}}}
	a, b := rt.Data.Groups[0], ""
	var folds [2][]int
	for i, g := range rt.Data.Groups {
		if b == "" && g != a {
			b = g
		}
		switch g {
		case a:
			folds[0] = append(folds[0], i)
		case b:
			folds[1] = append(folds[1], i)
		}
	}
	p, err := CrossValidateFolds(context.Background(), k, "first", rt, folds[:], nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := rt.Data.Rows()
	if want := []int{n - len(folds[0]), n - len(folds[1])}; !slices.Equal(trainedOn, want) || len(folds[0]) == 0 || len(folds[1]) == 0 {
		t.Errorf("trained on %v rows; want %v (each fold's complement)", trainedOn, want)
	}
	for i, g := range rt.Data.Groups {
		want, lnMs := -1, 0.0
		switch g {
		case a:
			want, lnMs = 0, rt.Data.X[i][0]
		case b:
			want, lnMs = 1, rt.Data.X[i][0]
		}
		if p.Fold[i] != want || p.LnMs[i] != lnMs {
			t.Fatalf("row %d of stencil %s: fold %d, prediction %v; want %d, %v", i, g, p.Fold[i], p.LnMs[i], want, lnMs)
		}
	}
	if _, err := CrossValidateFolds(context.Background(), k, "first", rt, [][]int{folds[0], folds[0][:1]}, nil, nil); err == nil || !strings.Contains(err.Error(), "earlier fold") {
		t.Errorf("a row in two folds: %v; want an error naming the earlier fold", err)
	}
}

// The same data set given twice, a copy of it or a path written otherwise, is refused: its rows
// would count twice.
func TestLoadRefusesTheSameDataSet(t *testing.T) {
	dir := synthDataSet(t, 4, []string{"A100-40GB"}, 3)
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), []string{dir, cp}, Options{Task: models.Runtime}); err == nil || !strings.Contains(err.Error(), "are the same data set") {
		t.Errorf("a data set and its copy: %v; want them refused", err)
	}
	if _, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime}); err != nil {
		t.Errorf("the data set once: %v", err)
	}
}

// TestLoadCancelled: a cancelled context stops Load with an error wrapping context.Canceled,
// both where it reads the data sets and where it builds their rows (each with the analytic
// model's time).
func TestLoadCancelled(t *testing.T) {
	dir := synthDataSet(t, 3, []string{"V100"}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, task := range []models.Task{models.Runtime, models.Select} {
		if _, err := Load(ctx, []string{dir}, Options{Task: task}); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v, want context.Canceled naming %s", task, err, dir)
		}
	}
	src := source{dir: dir, rows: make([]smart.Measurement, 3)}
	if err := (&Set{}).runtimeRows(ctx, []source{src}, nil); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped building rows after 0 of 3") {
		t.Errorf("building rows: %v, want context.Canceled after 0 of 3 rows", err)
	}
}

// TestLoadSaysTorn: a data set whose last line a stopped run left torn is read without it, and
// the set's description says so.
func TestLoadSaysTorn(t *testing.T) {
	dir := synthDataSet(t, 5, []string{"A100-40GB"}, 3)
	whole, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Torn) != 0 || strings.Contains(whole.Describe(), "left out") {
		t.Fatalf("a whole data set: torn %q", whole.Torn)
	}
	f, err := os.OpenFile(filepath.Join(dir, "rows.csv"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("abc,def") // a row cut short, without its newline
	f.Close()
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	if set.Data.Rows() != whole.Data.Rows() || len(set.Torn) != 1 || !strings.Contains(set.Describe(), "left out "+dir+"/rows.csv: line ") {
		t.Errorf("%d rows (want %d), torn %q, description:\n%s", set.Data.Rows(), whole.Data.Rows(), set.Torn, set.Describe())
	}
}
