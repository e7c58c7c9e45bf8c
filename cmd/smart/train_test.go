package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/app"
	"smart/dataset"
	"smart/models"
	"smart/models/train"
)

// trainFixture writes a small labelled data set: 24 random 3-D stencils, three OCs with a few
// settings each, on two GPUs, timed by a made-up formula (source simulated).
func trainFixture(t *testing.T) string { return trainFixtureOf(t, 24) }

// trainFixtureOf is a labelled data set of n 3-D stencils on two GPUs: 2n select rows, 18n runtime rows.
func trainFixtureOf(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fixture")
	gpus := map[string]float64{"A100-40GB": 1555, "V100": 900}
	meta := dataset.Meta{Sources: []smart.Source{smart.Simulated}, Params: dataset.StencilParams(), AllowMixed: true}
	for g := range gpus {
		meta.Devices = append(meta.Devices, dataset.Device{GPU: g, Name: g + " (test formula)"})
	}
	w, err := dataset.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	stencils, err := dataset.RandomStencils(n, 3, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ocs := []smart.Combination{0, smart.Combination(smart.ST), smart.Combination(smart.BM)}
	for _, st := range stencils {
		if err := w.AddStencil(st); err != nil {
			t.Fatal(err)
		}
		for g, bw := range gpus {
			for k, oc := range ocs {
				for _, bx := range []int{32, 128, 256} {
					s := smart.Setting{}
					for _, n := range smart.ParamNames(3, oc) {
						s[n] = 1
					}
					s[smart.ParamBlockX] = bx
					if oc.Has(smart.ST) {
						s[smart.ParamStreamD] = 3
					}
					ms := float64(st.NNZ()) * (1 + float64(k*st.Order())/3) / bw * (1 + math.Abs(math.Log2(float64(bx))-7)/10)
					m := smart.Measurement{StencilID: st.ID(), GPU: g, Device: g + " (test formula)", OC: oc, Setting: s,
						Status: smart.StatusOK, TimeMs: ms * math.Exp(0.01*rng.NormFloat64()), Source: smart.Simulated}
					if err := w.Append(m); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := dataset.LabelWith(context.Background(), dir, dataset.LabelOptions{Classes: 3}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTrainAndEval(t *testing.T) {
	data := trainFixture(t)
	model := filepath.Join(t.TempDir(), "rt.model")
	code, out, errs := runCLI(t, "", "train", "--task", "runtime", "--data", data, "--param", "rounds=30", "--cv", "3", "-o", model)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	for _, want := range []string{"3-fold cross-validation grouped by stencil", "A100-40GB", "V100", "MAPE", "wrote " + model} {
		if !strings.Contains(out, want) {
			t.Errorf("train output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "simulated measurements") {
		t.Errorf("train does not say where its data comes from:\n%s", errs)
	}

	code, out, errs = runCLI(t, "", "eval", model, "--data", data, "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	var rep struct {
		Rows    int `json:"rows"`
		Overall struct {
			MAPE float64 `json:"mape"`
		} `json:"overall"`
		PerGPU []struct {
			GPU string `json:"gpu"`
		} `json:"per_gpu"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	if rep.Rows != 24*2*3*3 || len(rep.PerGPU) != 2 || rep.Overall.MAPE <= 0 || rep.Overall.MAPE > 20 {
		t.Errorf("eval report %+v", rep)
	}
	if !strings.Contains(errs, "in-sample") {
		t.Errorf("evaluating on the training data does not warn:\n%s", errs)
	}

	code, out, errs = runCLI(t, "", "eval", model, "--data", data, "--holdout-gpu", "all")
	if code != 0 {
		t.Fatalf("eval --holdout-gpu: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "leave-one-GPU-out") || !strings.Contains(out, "mean") {
		t.Errorf("holdout output:\n%s", out)
	}
	code, out, errs = runCLI(t, "", "eval", model, "--data", data, "--holdout-gpu", "all", "--json")
	if code != 0 {
		t.Fatalf("eval --holdout-gpu all --json: exit %d: %s", code, errs)
	}
	var held []string
	for _, line := range jsonLines(t, out) { // one report per GPU held out
		var r train.Report
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		held = append(held, r.Holdout)
	}
	if slices.Sort(held); strings.Join(held, ",") != "A100-40GB,V100" {
		t.Errorf("eval --holdout-gpu all --json: reports holding out %v, want one per GPU", held)
	}
	// A GPU held out by an alias is the catalogue's GPU.
	code, out, errs = runCLI(t, "", "eval", model, "--data", data, "--holdout-gpu", "a100", "--json")
	var one train.Report
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil || one.Holdout != "A100-40GB" {
		t.Errorf("eval --holdout-gpu a100: exit %d, held out %q: %s", code, one.Holdout, errs)
	}
}

func TestTrainSelect(t *testing.T) {
	data := trainFixture(t)
	model := filepath.Join(t.TempDir(), "sel.model")
	code, out, errs := runCLI(t, "", "train", "--task", "select", "--data", data, "--param", "rounds=20,min_data_in_leaf=2", "--cv", "2", "-o", model, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var res app.TrainReport
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.CV == nil || res.CV.Overall.SelectScores == nil || res.Rows != 48 {
		t.Fatalf("result %+v", res)
	}
	code, out, _ = runCLI(t, "", "eval", model, "--data", data, "--cv", "2")
	if code != 0 || !strings.Contains(out, "confusion matrix") || !strings.Contains(out, "oracle share") {
		t.Errorf("eval --cv: exit %d\n%s", code, out)
	}
}

// TestTrainTinySelect: 10 select rows leave gbdt's default leaf of 20 rows no split, a model
// that predicts one class for everything: refused, naming the parameter and what would split;
// a value that splits trains.
func TestTrainTinySelect(t *testing.T) {
	data := trainFixtureOf(t, 5)
	model := filepath.Join(t.TempDir(), "sel.model")
	code, _, errs := runCLI(t, "", "train", "--task", "select", "--data", data, "-o", model)
	want := "\nsmart train: --param: gbdt: min_data_in_leaf is 20 (the default), but no tree could split 10 rows into leaves that large; give min_data_in_leaf=N with N at most 5 (less where cross-validation and early stopping hold rows out)\n"
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, want)
	}
	if _, err := os.Stat(model); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refusal wrote %s: %v", model, err)
	}
	if code, _, errs := runCLI(t, "", "train", "--task", "select", "--data", data, "--param", "min_data_in_leaf=2", "--cv", "0", "-o", model); code != 0 {
		t.Errorf("min_data_in_leaf=2: exit %d: %s", code, errs)
	}
}

func TestTrainErrors(t *testing.T) {
	data := trainFixture(t)
	bad := filepath.Join(t.TempDir(), "bad.model")
	os.WriteFile(bad, []byte("smart-model\n\x01\x00"), 0o644)
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"train", "--task", "runtime", "-o", "x"}, 2, "--data: give the data set directories to train on"},
		{[]string{"train", "--task", "runtime", "--data", data}, 2, "-o MODEL is required"},
		{[]string{"train", "--task", "runtime", "--data", data, "-o", "a.model", "--out", "b.model"}, 2, "-o and --out both name the model file"},
		{[]string{"train", "--task", "runtime", "--data", data, "-o", "../../data/stencils/j2d5pt.json"}, 2, "exists and is not a model file"},
		{[]string{"train", "--task", "guess", "--data", data, "-o", "x"}, 2, "unknown task"},
		{[]string{"train", "--task", "runtime", "--model", "svm", "--data", data, "-o", "x"}, 2, "known kinds: cart"},
		{[]string{"train", "--task", "select", "--model", "forest", "--data", data, "-o", "x"}, 2, "cannot learn the select task"},
		{[]string{"train", "--task", "runtime", "--data", data, "--param", "rounds=x", "-o", filepath.Join(t.TempDir(), "m")}, 2, "rounds"},
		{[]string{"train", "--task", "runtime", "--data", filepath.Join(data, "missing"), "-o", "x"}, 1, "not a data set"},
		{[]string{"train", "--task", "runtime", "--data", data, "-o", filepath.Join(data, "no", "m")}, 1, "does not exist"},
		{[]string{"train", "--task", "runtime", "--data", data, "--param", "lambda=NaN", "-o", filepath.Join(t.TempDir(), "m")}, 2, "not a finite number"},
		{[]string{"train", "--task", "runtime", "--data", data, "--param", "min_data_in_leaf=100000", "-o", filepath.Join(t.TempDir(), "m")}, 2, "--param: gbdt: min_data_in_leaf is 100000, but no tree could split"},
		{[]string{"train", "--task", "runtime", "--data", data, "--target", "ms", "-o", "x"}, 2, "--target ms: use ln_ms or ln_ms_over_analytic"},
		{[]string{"train", "--task", "runtime", "--data", data, "--target", "ln_ms_over_analytic", "-o", filepath.Join(t.TempDir(), "m")}, 1, "needs rows that carry the analytic model's time"},
		{[]string{"eval", bad, "--data", data}, 1, bad},
		{[]string{"eval", "--data", data}, 2, "one model file"},
		{[]string{"eval", bad, "--data", data + "," + data + "/"}, 2, "is given twice"},
	}
	for _, tc := range tests {
		code, _, errs := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	for _, cmd := range []string{"train", "eval"} {
		code, out, _ := runCLI(t, "", cmd, "--help")
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%s --help: exit %d\n%s", cmd, code, out)
		}
	}
}

// TestEvalRefusesLocal: smart eval scores times and OCs; a local-memory model is refused by name,
// the command line naming the program that scores one.
func TestEvalRefusesLocal(t *testing.T) {
	code, _, errs := runCLI(t, "", "eval", "../../data/measured/h100-sxm/models/local-2d.smartmodel.gz", "--data", "../../data/measured/h100-sxm/campaign")
	if code != 1 || !strings.Contains(errs, "local-2d.smartmodel.gz predicts the local memory") ||
		!strings.Contains(errs, "(task local), not times or OCs: go run ./bench/regmodel -local scores such a model\n") {
		t.Errorf("eval of a local-memory model: exit %d: %s", code, errs)
	}
}

// TestEvalDefaultOnMeasured scores the embedded 3-D runtime model (gzip-compressed, as embedded)
// on the committed H100 data set, which mixes a 3-D and a 2-D stencil: eval keeps the 3-D rows
// and must agree with bench/measured, which predicts through predict.ModelScorer instead.
func TestEvalDefaultOnMeasured(t *testing.T) {
	code, out, errs := runCLI(t, "", "eval", "../../data/models/runtime-3d.smartmodel.gz", "--data", "../../data/measured/h100-sxm/classic", "--json")
	if code != 0 {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "left out 600 rows of stencils that are not 3-D") {
		t.Errorf("eval does not say it left the 2-D rows out:\n%s", errs)
	}
	var rep struct {
		Rows    int `json:"rows"`
		Overall struct {
			MAPE float64 `json:"mape"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("eval --json: %v\n%s", err, out)
	}
	// go run ./bench/measured -data data/measured/h100-sxm/classic -json: j3d7pt, 598 ok rows,
	// MAPE 34.151% (the default runtime model learned from these rows too).
	if rep.Rows != 598 || rep.Overall.MAPE < 34.10 || rep.Overall.MAPE > 34.20 {
		t.Errorf("eval report %+v; want 598 rows at 34.15%% MAPE", rep)
	}
}

// TestTrainDims trains on the committed H100 data set, which mixes a 3-D and a 2-D stencil:
// without --dims train refuses and names the flag; with it the model is of the stencils kept,
// and eval of that model keeps the same rows.
func TestTrainDims(t *testing.T) {
	const measured = "../../data/measured/h100-sxm/classic" // j3d7pt: 600 rows (598 ok); j2d5pt: 600 ok
	model := filepath.Join(t.TempDir(), "h100-2d.model")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--data", measured, "-o", model}, 1, "3-D and 2-D (5868d95e08891da1 of " + measured + ")"},
		{[]string{"--data", measured, "-o", model}, 1, "pass --dims 2 or --dims 3"},
		{[]string{"--data", measured, "--dims", "4", "-o", model}, 2, "--dims 4: stencils are 2-D or 3-D"},
		{[]string{"--data", trainFixture(t), "--dims", "2", "-o", model}, 1, "no rows of 2-D stencils, only 432 rows of stencils of other dimensions: give data sets of 2-D stencils"},
		// One stencil left: early stopping has no stencil to validate on.
		{[]string{"--data", measured, "--dims", "2", "--cv", "0", "-o", model}, 1, "set early_stop=0"},
		{[]string{"--data", measured, "--dims", "2", "--cv", "0", "--param", "early_stop=0", "-o", model}, 0, "left out 600 rows of stencils that are not 2-D (--dims)"},
	}
	for _, tc := range tests {
		args := append([]string{"train", "--task", "runtime"}, tc.args...)
		code, _, errs := runCLI(t, "", args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", args, code, errs, tc.code, tc.want)
		}
	}
	code, out, errs := runCLI(t, "", "eval", model, "--data", measured, "--json")
	if code != 0 {
		t.Fatalf("eval of the 2-D model: exit %d: %s", code, errs)
	}
	var rep struct {
		Rows int `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 600 || !strings.Contains(errs, "left out 600 rows of stencils that are not 2-D") {
		t.Errorf("eval of the 2-D model scored %d rows (want j2d5pt's 600); stderr %q", rep.Rows, errs)
	}
}

// TestTrainSelectDims labels a copy of the H100 data set (one 3-D and one 2-D stencil) and
// trains a selection model on each dimensionality: the labels of the stencils left out are
// skipped, not taken for stencils without rows.
func TestTrainSelectDims(t *testing.T) {
	data := filepath.Join(t.TempDir(), "classic")
	if err := os.CopyFS(data, os.DirFS("../../data/measured/h100-sxm/classic")); err != nil {
		t.Fatal(err)
	}
	// A class an OC: two stencils correlate nothing to merge OCs by.
	if code, _, errs := runCLI(t, "", "dataset", "label", data, "--classes", "64"); code != 0 {
		t.Fatalf("label: exit %d: %s", code, errs)
	}
	for _, dims := range []string{"2", "3"} {
		model := filepath.Join(t.TempDir(), "sel.model")
		code, _, errs := runCLI(t, "", "train", "--task", "select", "--data", data, "--dims", dims, "--cv", "0", "--param", "early_stop=0", "-o", model)
		if code != 0 || !strings.Contains(errs, "data: 1 rows") {
			t.Errorf("select --dims %s: exit %d, want one instance (the stencil of that dimensionality):\n%s", dims, code, errs)
			continue
		}
		code, out, errs := runCLI(t, "", "eval", model, "--data", data, "--json")
		var rep struct {
			Rows int `json:"rows"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Rows != 1 {
			t.Errorf("eval of the %s-D selection model: exit %d, %d rows (want 1): %s", dims, code, rep.Rows, errs)
		}
	}
}

// TestTrainParamErrors: a hyper-parameter a kind refuses is a usage error (exit 2) naming it,
// like a malformed --param, whether the kind judges it alone or against the data.
func TestTrainParamErrors(t *testing.T) {
	data := trainFixture(t)
	tests := []struct {
		task, kind, param string
		want              string
	}{
		{"select", "gbdt", "rounds=0", "rounds is 0"},
		{"select", "gbdt", "learning_rate=-1", "learning_rate is -1"},
		{"runtime", "gbdt", "growth=foo", "growth"},
		{"runtime", "gbdt", "nosuch=1", "unknown hyper-parameter"},
		{"runtime", "gbdt", "max_bins=1", "max_bins is 1"},
		{"runtime", "forest", "max_bins=1", "max_bins is 1"},
		{"runtime", "forest", "trees=0", "trees"},
		{"runtime", "cart", "criterion=gini", "criterion"},
		{"runtime", "knn", "k=0", "k is 0"},
		{"runtime", "knn", "max_rows=1", "max_rows=1 keeps only 1 training rows"},
		{"runtime", "mlp", "layers=0", "layers=0"},
		{"select", "fcnet", "epochs=x", "epochs"},
	}
	for _, tc := range tests {
		t.Run(tc.kind+"/"+tc.param, func(t *testing.T) {
			code, _, errs := runCLI(t, "", "train", "--task", tc.task, "--model", tc.kind, "--param", tc.param, "--cv", "2",
				"-o", filepath.Join(t.TempDir(), "m"), "--data", data)
			if code != 2 || !strings.Contains(errs, "--param") || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and --param: ...%s", code, errs, tc.want)
			}
		})
	}
	// Parameters the kinds accept still train.
	code, _, errs := runCLI(t, "", "train", "--task", "runtime", "--model", "gbdt", "--data", data, "--param", "rounds=5,max_bins=16",
		"--cv", "0", "-o", filepath.Join(t.TempDir(), "m"))
	if code != 0 {
		t.Errorf("valid parameters: exit %d: %s", code, errs)
	}
}

// TestTrainProgressFrom: the fit's bar begins as the first round is reported, after that
// round ran: after round 1 of 2 it shows no rate (one round over the moment since the bar
// began, it showed thousands a second) and no time left, as neither can be told yet.
func TestTrainProgressFrom(t *testing.T) {
	var errb bytes.Buffer
	_, round, _ := trainProgress(&env{stderr: &errb, interactive: true}, "runtime", 0)
	round(models.Round{Round: 1, Rounds: 2, Metric: "l2", Train: 0.5, Valid: math.NaN()})
	if got := errb.String(); !strings.Contains(got, " 1/2  50.0% ?/s ETA ?") {
		t.Errorf("after round 1 of 2 the bar reads %q; want no rate and no time left", got)
	}
}
