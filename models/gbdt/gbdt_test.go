package gbdt

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"smart/models"
)

// regression is y = 2 sin(x0) + x1^2 + 0.3 x2 + noise; x3 is pure noise.
func regression(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	d := &models.Data{Task: models.Runtime, Features: []string{"a", "b", "c", "noise"}}
	for i := 0; i < n; i++ {
		x := []float64{rng.Float64() * 4, rng.Float64() * 2, float64(rng.IntN(5)), rng.NormFloat64()}
		d.X = append(d.X, x)
		d.Y = append(d.Y, 2*math.Sin(x[0])+x[1]*x[1]+0.3*x[2]+0.05*rng.NormFloat64())
		d.Groups = append(d.Groups, string(rune('A'+i%50)))
	}
	return d
}

// classes labels points by the sector of the angle of (x0, x1): k classes, plus 5% label noise.
func classes(n, k int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 2))
	d := &models.Data{Task: models.Select, Classes: k, Features: []string{"x", "y", "z"}}
	for i := 0; i < n; i++ {
		x := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.Float64()}
		c := int((math.Atan2(x[1], x[0]) + math.Pi) / (2 * math.Pi) * float64(k))
		c = min(c, k-1)
		if rng.Float64() < 0.05 {
			c = rng.IntN(k)
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, float64(c))
		d.Groups = append(d.Groups, string(rune('A'+i%40)))
	}
	return d
}

func mse(m *Model, d *models.Data) float64 {
	p, err := m.PredictBatch(d.X)
	if err != nil {
		panic(err)
	}
	s := 0.0
	for i := range p {
		s += (p[i] - d.Y[i]) * (p[i] - d.Y[i])
	}
	return s / float64(len(p))
}

func TestRegressionLearns(t *testing.T) {
	train, test := regression(5000, 1), regression(1000, 2)
	variance := 0.0
	mean := 0.0
	for _, y := range test.Y {
		mean += y / float64(len(test.Y))
	}
	for _, y := range test.Y {
		variance += (y - mean) * (y - mean) / float64(len(test.Y))
	}
	tests := []struct {
		name   string
		modify func(*Params)
	}{
		{"leafwise", func(p *Params) {}},
		{"depthwise", func(p *Params) { p.Growth, p.MaxDepth, p.MaxLeaves = "depthwise", 5, 64 }},
		{"subsampled", func(p *Params) { p.Subsample, p.ColSample = 0.7, 0.75 }},
		{"few bins", func(p *Params) { p.MaxBins = 16 }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := DefaultParams()
			p.Rounds, p.EarlyStop = 150, 0
			tc.modify(&p)
			m, err := Train(context.Background(), train, nil, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The noise variance is 0.0025; a model explaining 99% of the variance is learning.
			if e := mse(m, test); e > 0.01*variance {
				t.Errorf("test MSE %v is more than 1%% of the variance %v", e, variance)
			}
			imp := m.Importance(train.Features)
			if imp[3].Gain > imp[0].Gain/20 || imp[0].Splits == 0 {
				t.Errorf("noise feature has gain %v against %v for x0", imp[3].Gain, imp[0].Gain)
			}
		})
	}
}

func TestClassifierLearns(t *testing.T) {
	train, test := classes(4000, 4, 3), classes(1000, 4, 4)
	p := DefaultParams()
	p.Rounds, p.EarlyStop = 60, 0
	m, err := Train(context.Background(), train, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	probs, err := m.PredictProbaBatch(test.X)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i, pr := range probs {
		sum, best := 0.0, 0
		for c, v := range pr {
			sum += v
			if v > pr[best] {
				best = c
			}
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("probabilities of row %d sum to %v", i, sum)
		}
		if best == int(test.Y[i]) {
			right++
		}
	}
	// 5% of labels are random, so 95% + 5%/4 is the ceiling.
	if acc := float64(right) / float64(len(probs)); acc < 0.9 {
		t.Errorf("accuracy %.3f < 0.9", acc)
	}
	if _, err := m.Predict(test.X[0]); err == nil {
		t.Error("Predict on a classifier did not fail")
	}
}

// TestLeavesMatchesGo checks the predictions through leaves against the trees evaluated in Go,
// for both objectives, with subsampling and the initial score folded into the first trees.
func TestLeavesMatchesGo(t *testing.T) {
	for _, d := range []*models.Data{regression(3000, 5), classes(3000, 5, 6)} {
		p := DefaultParams()
		p.Rounds, p.EarlyStop, p.Subsample, p.ColSample = 40, 0, 0.8, 0.7
		m, err := Train(context.Background(), d, nil, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		test := regression(500, 7).X
		if d.Task == models.Select {
			test = classes(500, 5, 8).X
		}
		for _, row := range test {
			want := m.Eval(row)
			var got []float64
			if d.Task == models.Select {
				got, err = m.PredictProba(row)
			} else {
				var v float64
				v, err = m.Predict(row)
				got = []float64{v}
			}
			if err != nil {
				t.Fatal(err)
			}
			for c := range want {
				if math.Abs(got[c]-want[c]) > 1e-9 {
					t.Fatalf("%s: leaves %v, Go %v", d.Task, got, want)
				}
			}
		}
	}
}

// TestTrainingScoresMatchModel checks the scores kept during training (updated leaf by leaf)
// against the saved model: the training loss of the last round must equal the loss of the
// model's predictions.
func TestTrainingScoresMatchModel(t *testing.T) {
	d := regression(2000, 9)
	p := DefaultParams()
	p.Rounds, p.EarlyStop, p.Subsample = 30, 0, 0.6
	m, err := Train(context.Background(), d, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	last := m.History[len(m.History)-1].Train
	if got := mse(m, d); math.Abs(got-last) > 1e-9 {
		t.Errorf("model MSE on the training rows %v, training loss %v", got, last)
	}
}

func TestEarlyStopping(t *testing.T) {
	// Pure noise: validation loss stops improving almost at once.
	rng := rand.New(rand.NewPCG(3, 3))
	d := &models.Data{Task: models.Runtime, Features: []string{"a", "b"}}
	for i := 0; i < 2000; i++ {
		d.X = append(d.X, []float64{rng.Float64(), rng.Float64()})
		d.Y = append(d.Y, rng.NormFloat64())
		d.Groups = append(d.Groups, string(rune('a'+i%26)))
	}
	p := DefaultParams()
	p.Rounds, p.EarlyStop, p.MinDataInLeaf = 500, 10, 5
	var rounds []models.Round
	m, err := Train(context.Background(), d, nil, p, func(r models.Round) { rounds = append(rounds, r) })
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) >= 500 || m.Kept != len(rounds)-10 {
		t.Errorf("ran %d rounds, kept %d; want a stop 10 rounds after the best", len(rounds), m.Kept)
	}
	best := math.Inf(1)
	for _, r := range rounds[:m.Kept] {
		best = min(best, r.Valid)
	}
	if rounds[m.Kept-1].Valid != best {
		t.Errorf("kept round %d has validation loss %v, best %v", m.Kept, rounds[m.Kept-1].Valid, best)
	}
	if n := bytes.Count(lgbText(m), []byte("\nTree=")); n != m.Kept {
		t.Errorf("model holds %d trees, kept %d rounds", n, m.Kept)
	}
}

func TestDeterministic(t *testing.T) {
	d := regression(1500, 11)
	p := DefaultParams()
	p.Rounds, p.Subsample, p.ColSample = 20, 0.5, 0.5
	a, err := Train(context.Background(), d, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), d, nil, p, nil)
	if !bytes.Equal(lgbText(a), lgbText(b)) {
		t.Error("two trainings with one seed differ")
	}
	p.Seed = 2
	c, _ := Train(context.Background(), d, nil, p, nil)
	if bytes.Equal(lgbText(a), lgbText(c)) {
		t.Error("different seeds give the same model")
	}
}

func TestBadInput(t *testing.T) {
	d := regression(100, 1)
	tests := []struct {
		name   string
		params map[string]string
		data   func() *models.Data
		want   string
	}{
		{"unknown param", map[string]string{"depth": "3"}, nil, "unknown hyper-parameter"},
		{"bad value", map[string]string{"rounds": "many"}, nil, "rounds"},
		{"bad growth", map[string]string{"growth": "sideways"}, nil, "growth"},
		{"bad rate", map[string]string{"learning_rate": "0"}, nil, "learning_rate"},
		{"bins", map[string]string{"max_bins": "1000"}, nil, "bins"},
		{"threads", map[string]string{"threads": "-1"}, nil, "threads is -1"},
		{"no bags", map[string]string{"bags": "0"}, nil, "bags is 0"},
		{"bag fraction", map[string]string{"bags": "3", "bag_fraction": "1.5"}, nil, "bag_fraction is 1.5"},
		{"seed", map[string]string{"seed": "-2"}, nil, "seed"},
		{"bag without groups to stop on", map[string]string{"bags": "2", "bag_fraction": "0.02"}, nil, "bag 1: early stopping"},
		{"NaN", nil, func() *models.Data {
			c := *d
			c.X = append([][]float64{{math.NaN(), 0, 0, 0}}, d.X[1:]...)
			return &c
		}, "finite"},
		{"no rows", nil, func() *models.Data { return &models.Data{Task: models.Runtime, Features: d.Features} }, "no rows"},
	}
	kinds := models.Kinds{}
	Register(kinds)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := d
			if tc.data != nil {
				data = tc.data()
			}
			_, err := kinds["gbdt"].Train(context.Background(), data, nil, tc.params, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestSaveLoad saves both kinds of model in smart's model file and loads them back through
// models.Load: the loaded runtime model predicts exp of the trained output.
func TestSaveLoad(t *testing.T) {
	kinds := models.Kinds{}
	Register(kinds)
	dir := t.TempDir()
	for _, d := range []*models.Data{regression(1000, 12), classes(1000, 3, 13)} {
		fitted, err := kinds["gbdt"].Train(context.Background(), d, nil, map[string]string{"rounds": "20"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		h := &models.Header{Kind: "gbdt", Task: d.Task, Target: models.TargetLnMs, Features: d.Features}
		if d.Task == models.Select {
			h.Target = models.TargetClass
			h.Classes = []models.Class{{OC: 0}, {OC: 1}, {OC: 3}}
		}
		path := filepath.Join(dir, string(d.Task)+".model")
		if err := models.Save(path, h, fitted); err != nil {
			t.Fatal(err)
		}
		m, err := models.Load(path, kinds)
		if err != nil {
			t.Fatal(err)
		}
		row := d.X[7]
		if d.Task == models.Runtime {
			want, _ := fitted.(*Model).Predict(row)
			got, err := m.Regressor.Predict(row)
			if err != nil || math.Abs(got-math.Exp(want)) > 1e-12*math.Exp(want) {
				t.Errorf("loaded model predicts %v (%v), want exp(%v)", got, err, want)
			}
		} else {
			want, _ := fitted.(*Model).PredictProba(row)
			got, err := m.Classifier.PredictProba(row)
			if err != nil || math.Abs(got[1]-want[1]) > 1e-12 {
				t.Errorf("loaded model predicts %v (%v), want %v", got, err, want)
			}
		}
		if !strings.Contains(string(m.Header.Hyper), `"rounds":20`) {
			t.Errorf("header hyper-parameters %s lack the rounds", m.Header.Hyper)
		}
	}
}

func ExampleTrain() {
	// A regression on ln(time): time grows with the square of the first feature.
	d := &models.Data{Task: models.Runtime, Features: []string{"size", "unused"}}
	for i := 0; i < 400; i++ {
		s := float64(i%20) + 1
		d.X = append(d.X, []float64{s, float64(i % 3)})
		d.Y = append(d.Y, math.Log(0.01*s*s))
	}
	p := DefaultParams()
	p.Rounds, p.EarlyStop, p.MinDataInLeaf = 200, 0, 5
	m, err := Train(context.Background(), d, nil, p, nil)
	if err != nil {
		panic(err)
	}
	lnMs, _ := m.Predict([]float64{10, 0})
	imp := m.Importance(d.Features)
	fmt.Printf("size 10: %.2f ms; splits on size: %t, on unused: %d\n", math.Exp(lnMs), imp[0].Splits > 0, imp[1].Splits)
	// Output: size 10: 1.00 ms; splits on size: true, on unused: 0
}

// A bagged model predicts the mean of models trained apart on the same bags of groups, and the
// bags leave groups out.
func TestBagsAverageMembers(t *testing.T) {
	d := regression(2000, 5)
	p := DefaultParams()
	p.Rounds, p.EarlyStop, p.Bags, p.BagFraction = 30, 10, 3, 0.6
	bagged, err := Train(context.Background(), d, nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	test := regression(200, 6)
	want := make([]float64, test.Rows())
	seeds := rand.New(rand.NewPCG(p.Seed, 0xba9))
	for b := range p.Bags {
		one := p
		one.Bags, one.Seed = 1, seeds.Uint64()
		bag, err := models.SampleGroups(d, p.BagFraction, one.Seed)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, g := range bag.Groups {
			seen[g] = true
		}
		if len(seen) != 30 { // 0.6 of the 50 groups
			t.Errorf("bag %d holds %d groups, want 30", b, len(seen))
		}
		m, err := Train(context.Background(), bag, nil, one, nil)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := m.PredictBatch(test.X)
		if err != nil {
			t.Fatal(err)
		}
		for i := range pred {
			want[i] += pred[i] / float64(p.Bags)
		}
	}
	got, err := bagged.PredictBatch(test.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("row %d: bagged model predicts %v, the mean of its members %v", i, got[i], want[i])
		}
	}
	loaded, err := FromLightGBM(lgbText(bagged))
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := loaded.PredictBatch(test.X); math.Abs(back[0]-got[0]) > 1e-9 {
		t.Errorf("saved and loaded bagged model predicts %v, want %v", back[0], got[0])
	}
	if len(bagged.History) == 0 || bagged.History[len(bagged.History)-1].Rounds != p.Bags*p.Rounds {
		t.Errorf("history does not count the rounds of every bag: %+v", bagged.History[len(bagged.History)-1])
	}
}

// lgbText is m's LightGBM text, the payload MarshalBinary writes.
func lgbText(m *Model) []byte {
	b, _ := m.MarshalBinary()
	return b
}
