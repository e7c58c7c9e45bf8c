package nn

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/models"
)

func TestDeterministic(t *testing.T) {
	d := tensorTimeData(256, 21)
	params := func(seed string) map[string]string { // large enough for gonum's parallel matrix products
		return map[string]string{"filters": "4", "branch": "8", "hidden": "128", "epochs": "2", "batch": "128", "seed": seed}
	}
	a := mustTrain(t, KindConvMLP, d, nil, params("5"))
	// The same seed on one thread and on four: gonum and gorgonia split work by output blocks, so
	// the number of threads must not change a bit.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b := mustTrain(t, KindConvMLP, d, nil, params("5"))
	runtime.GOMAXPROCS(4)
	c := mustTrain(t, KindConvMLP, d, nil, params("6"))
	for i := range a.Params {
		if !slices.Equal(a.Params[i].Data, b.Params[i].Data) {
			t.Errorf("weights %s differ between two trainings with the same seed on different numbers of threads", a.Params[i].Name)
		}
	}
	if slices.Equal(a.Params[0].Data, c.Params[0].Data) {
		t.Error("trainings with different seeds gave the same first weights")
	}
	pa, _ := a.PredictBatch(d.X)
	pb, _ := b.PredictBatch(d.X)
	if !slices.Equal(pa, pb) {
		t.Error("predictions differ between two trainings with the same seed")
	}
}

// header returns a model header for d, as the training pipeline writes it.
func header(kind string, d *models.Data, norm *models.Scale) *models.Header {
	h := &models.Header{Kind: kind, Task: d.Task, Target: models.TargetLnMs, Features: d.Features, Norm: norm}
	if d.Task == models.Select {
		h.Target = models.TargetClass
		for c := range d.Classes {
			oc := smart.Combinations()[c]
			h.Classes = append(h.Classes, models.Class{OC: oc, Members: []smart.Combination{oc}})
		}
	}
	return h
}

// TestSaveLoad trains on scaled rows, saves through the models file format, loads through a
// registry and checks that the loaded model, given raw rows, predicts exactly what the trained
// network predicts on the scaled rows.
func TestSaveLoad(t *testing.T) {
	kinds := models.Kinds{}
	Register(kinds)
	tests := []struct {
		kind   string
		data   *models.Data
		params map[string]string
	}{
		{KindFcNet, argmaxData(300, 31), map[string]string{"hidden": "16-8", "epochs": "2"}},
		{KindMLP, smoothData(300, 32), map[string]string{"layers": "2", "width": "16", "epochs": "2"}},
		{KindConvNet, orderData(3, 100, 33), map[string]string{"filters": "4", "hidden": "8", "epochs": "1"}},
		{KindConvMLP, tensorTimeData(100, 34), map[string]string{"filters": "4", "branch": "4", "hidden": "8", "epochs": "1"}},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			raw := tc.data.Subset(seq(tc.data.Rows()))
			for i, r := range raw.X { // make the scaling matter: raw = 10x + 3 on every column
				raw.X[i] = make([]float64, len(r))
				for j, v := range r {
					raw.X[i][j] = 10*v + 3
				}
			}
			norm := models.FitScale(raw.X)
			scaled := raw.Subset(seq(raw.Rows()))
			scaled.X = norm.ApplyAll(raw.X)
			fit, err := kinds[tc.kind].Train(context.Background(), scaled, nil, tc.params, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := fit.(*Net)
			path := filepath.Join(t.TempDir(), tc.kind+".model")
			if err := models.Save(path, header(tc.kind, raw, norm), fit); err != nil {
				t.Fatal(err)
			}
			m, err := models.Load(path, kinds)
			if err != nil {
				t.Fatal(err)
			}
			if tc.data.Task == models.Select {
				want, _ := n.PredictProbaBatch(scaled.X)
				got, err := m.Classifier.PredictProbaBatch(raw.X)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if !slices.Equal(got[i], want[i]) {
						t.Fatalf("row %d: loaded model gives %v, trained %v", i, got[i], want[i])
					}
				}
			} else {
				want, _ := n.PredictBatch(scaled.X)
				got, err := m.Regressor.PredictBatch(raw.X)
				if err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if got[i] != math.Exp(want[i]) {
						t.Fatalf("row %d: loaded model gives %v ms, trained exp(%v)", i, got[i], want[i])
					}
				}
			}
			var hyper Hyper
			if err := json.Unmarshal(m.Header.Hyper, &hyper); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(hyper.Hidden, n.hyper.Hidden) || hyper.Epochs != n.hyper.Epochs {
				t.Errorf("saved hyper-parameters %+v, trained with %+v", hyper, n.hyper)
			}
		})
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestSingleAndBatchAgree checks the batch-1 graph against the batched graph, over a number of
// rows that needs two full batches and a padded one.
func TestSingleAndBatchAgree(t *testing.T) {
	tests := []struct {
		kind string
		data *models.Data
	}{
		{KindConvNet, orderData(3, 2*predictBatch+44, 41)},
		{KindConvMLP, tensorTimeData(2*predictBatch+44, 42)},
	}
	for _, tc := range tests {
		t.Run(tc.kind, func(t *testing.T) {
			n := mustTrain(t, tc.kind, tc.data.Subset(seq(60)), nil, map[string]string{"filters": "4-4", "hidden": "8", "epochs": "1"})
			if n.Arch.Classify {
				batch, err := n.PredictProbaBatch(tc.data.X)
				if err != nil {
					t.Fatal(err)
				}
				for i, row := range tc.data.X {
					one, err := n.PredictProba(row)
					if err != nil {
						t.Fatal(err)
					}
					for j := range one {
						if math.Abs(one[j]-batch[i][j]) > 1e-12 {
							t.Fatalf("row %d class %d: single %v, batch %v", i, j, one[j], batch[i][j])
						}
					}
				}
				return
			}
			batch, err := n.PredictBatch(tc.data.X)
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range tc.data.X {
				one, err := n.Predict(row)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(one-batch[i]) > 1e-12*math.Abs(one) {
					t.Fatalf("row %d: single %v, batch %v", i, one, batch[i])
				}
			}
		})
	}
}

func TestPredictErrors(t *testing.T) {
	c := mustTrain(t, KindFcNet, argmaxData(60, 51), nil, map[string]string{"hidden": "4", "epochs": "1"})
	r := mustTrain(t, KindMLP, smoothData(60, 52), nil, map[string]string{"layers": "1", "width": "4", "epochs": "1"})
	if _, err := c.Predict(make([]float64, c.Width)); !errors.Is(err, errNotRegressor) {
		t.Errorf("classifier Predict: %v", err)
	}
	if _, err := r.PredictProba(make([]float64, r.Width)); !errors.Is(err, errNotClassifier) {
		t.Errorf("regressor PredictProba: %v", err)
	}
	if _, err := r.PredictBatch([][]float64{make([]float64, r.Width), make([]float64, 3)}); err == nil || !strings.Contains(err.Error(), "row 1 has 3 features") {
		t.Errorf("short row: %v", err)
	}
}

// TestRounds checks the per-epoch reports, and that the last reported validation loss is the
// loss of the final predictions.
func TestRounds(t *testing.T) {
	train, valid := smoothData(300, 61), smoothData(100, 62)
	var rounds []models.Round
	n, err := Train(context.Background(), KindMLP, train, valid, map[string]string{"layers": "2", "width": "8", "epochs": "4"},
		func(r models.Round) { rounds = append(rounds, r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 4 {
		t.Fatalf("%d rounds reported for 4 epochs", len(rounds))
	}
	for i, r := range rounds {
		if r.Round != i+1 || r.Rounds != 4 || r.Metric != "l2" || !(r.Train > 0) || !(r.Valid > 0) {
			t.Errorf("round %d: %+v", i, r)
		}
	}
	p, _ := n.PredictBatch(valid.X)
	l2 := 0.0
	for i, v := range p {
		l2 += (v - valid.Y[i]) * (v - valid.Y[i])
	}
	l2 /= float64(len(p))
	if last := rounds[3].Valid; math.Abs(last-l2) > 1e-12*l2 {
		t.Errorf("last validation loss %v, loss of the final predictions %v", last, l2)
	}

	rounds = nil
	if _, err := Train(context.Background(), KindFcNet, argmaxData(100, 63), nil, map[string]string{"hidden": "4", "epochs": "2"},
		func(r models.Round) { rounds = append(rounds, r) }); err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 2 || rounds[0].Metric != "multi_logloss" || !math.IsNaN(rounds[0].Valid) {
		t.Errorf("classifier rounds without validation rows: %+v", rounds)
	}
}

func TestTrainErrors(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	badClass := argmaxData(20, 71)
	badClass.Y[3] = 7
	tests := []struct {
		name   string
		ctx    context.Context
		kind   string
		data   *models.Data
		params map[string]string
		want   string
	}{
		{"unknown kind", context.Background(), "lstm", smoothData(20, 1), nil, "unknown network kind"},
		{"wrong task", context.Background(), KindMLP, argmaxData(20, 1), nil, "learns the runtime task"},
		{"bad class", context.Background(), KindFcNet, badClass, nil, "row 3: class 7"},
		{"no tensor", context.Background(), KindConvNet, argmaxData(20, 1), nil, "no stencil tensor"},
		{"no branch input", context.Background(), KindConvMLP, withTask(orderData(2, 20, 1), models.Runtime), nil, "no setting or GPU columns"},
		{"bad parameter", context.Background(), KindMLP, smoothData(20, 1), map[string]string{"dropout": "0.5"}, `unknown hyper-parameter "dropout"`},
		{"cancelled", cancelled, KindMLP, smoothData(20, 1), nil, "context canceled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Train(tc.ctx, tc.kind, tc.data, nil, tc.params, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func withTask(d *models.Data, task models.Task) *models.Data {
	d.Task = task
	return d
}

func TestParseHyper(t *testing.T) {
	tests := []struct {
		kind   string
		params map[string]string
		check  func(h Hyper) bool
		want   string // error substring; empty for success
	}{
		{KindMLP, nil, func(h Hyper) bool {
			return len(h.Hidden) == 7 && h.Batch == 256 && h.LearnRate == 5e-4
		}, ""},
		{KindConvNet, nil, func(h Hyper) bool { return h.Batch == 50 && h.LearnRate == 1e-4 && len(h.Filters) > 0 }, ""},
		{KindMLP, map[string]string{"hidden": "64-32"}, func(h Hyper) bool { return slices.Equal(h.Hidden, []int{64, 32}) }, ""},
		{KindMLP, map[string]string{"layers": "3", "width": "16"}, func(h Hyper) bool { return slices.Equal(h.Hidden, []int{16, 16, 16}) }, ""},
		{KindMLP, map[string]string{"layers": "2"}, func(h Hyper) bool { return slices.Equal(h.Hidden, []int{256, 256}) }, ""},
		{KindConvMLP, map[string]string{"filters": "4-8", "branch": "32", "pool": "false", "seed": "9"}, func(h Hyper) bool {
			return slices.Equal(h.Filters, []int{4, 8}) && slices.Equal(h.Branch, []int{32}) && !h.Pool && h.Seed == 9
		}, ""},
		{KindMLP, map[string]string{"hidden": "64", "layers": "2"}, nil, "not both"},
		{KindMLP, map[string]string{"hidden": "64-x"}, nil, `hidden="64-x"`},
		{KindMLP, map[string]string{"filters": "8"}, nil, `unknown hyper-parameter "filters"`},
		{KindConvNet, map[string]string{"branch": "8"}, nil, `unknown hyper-parameter "branch"`},
		{KindMLP, map[string]string{"lr": "2"}, nil, "lr=2"},
		{KindMLP, map[string]string{"epochs": "0"}, nil, "epochs=0"},
		{KindMLP, map[string]string{"batch": "0"}, nil, "batch=0"},
		{KindMLP, map[string]string{"seed": "-1"}, nil, "seed=-1"},
		{KindMLP, map[string]string{"width": "0"}, nil, "width=0"},
	}
	for _, tc := range tests {
		h, err := ParseHyper(tc.kind, tc.params)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.kind, tc.params, err)
		case tc.want == "" && !tc.check(h):
			t.Errorf("%s %v: got %+v", tc.kind, tc.params, h)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: got %v, want an error containing %q", tc.kind, tc.params, err, tc.want)
		}
	}
}
