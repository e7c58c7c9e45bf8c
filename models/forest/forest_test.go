package forest

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"smart/models"
)

// friedman is Friedman's regression problem #1 with 5 noise features.
func friedman(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 4))
	d := &models.Data{Task: models.Runtime, Features: []string{"x0", "x1", "x2", "x3", "x4", "n0", "n1", "n2", "n3", "n4"}}
	for i := 0; i < n; i++ {
		x := make([]float64, 10)
		for j := range x {
			x[j] = rng.Float64()
		}
		y := 10*math.Sin(math.Pi*x[0]*x[1]) + 20*(x[2]-0.5)*(x[2]-0.5) + 10*x[3] + 5*x[4] + rng.NormFloat64()
		d.X = append(d.X, x)
		d.Y = append(d.Y, y)
	}
	return d
}

func testMSE(t *testing.T, m *Model, d *models.Data) float64 {
	t.Helper()
	p, err := m.PredictBatch(d.X)
	if err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for i := range p {
		s += (p[i] - d.Y[i]) * (p[i] - d.Y[i])
	}
	return s / float64(len(p))
}

func TestForestLearnsAndOOBEstimatesTestError(t *testing.T) {
	train, test := friedman(2000, 1), friedman(1000, 2)
	p := DefaultParams()
	p.Trees = 60
	var rounds []models.Round
	m, err := Train(context.Background(), train, p, func(r models.Round) { rounds = append(rounds, r) })
	if err != nil {
		t.Fatal(err)
	}
	mse := testMSE(t, m, test)
	// The target's variance is about 24 and the noise 1; a forest gets to about 5-7.
	if mse > 8 {
		t.Errorf("test MSE %.2f > 8", mse)
	}
	// Out-of-bag error estimates the test error without a test set.
	if m.OOB < 0.7*mse || m.OOB > 1.4*mse {
		t.Errorf("OOB error %.2f is far from the test error %.2f", m.OOB, mse)
	}
	if len(rounds) != 60 || rounds[59].Valid != m.OOB || rounds[59].Train >= m.OOB {
		t.Errorf("progress: %d rounds, last %+v, OOB %v", len(rounds), rounds[len(rounds)-1], m.OOB)
	}
	// The forest's prediction is the mean of its trees: leaves' average equals the Go evaluation.
	for _, row := range test.X[:200] {
		got, _ := m.Predict(row)
		if want := m.Eval(row)[0]; math.Abs(got-want) > 1e-9 {
			t.Fatalf("leaves %v, Go %v", got, want)
		}
	}
	imp := m.Importance(train.Features)
	for j := 5; j < 10; j++ {
		if imp[j].Gain > imp[3].Gain {
			t.Errorf("noise feature %s has more gain (%v) than x3 (%v)", imp[j].Feature, imp[j].Gain, imp[3].Gain)
		}
	}
}

// TestSingleTreeIsMeanOfBag: one tree with leaves of one row, fed a full sample without noise,
// must interpolate the rows it saw.
func TestSingleTreeMemorisesItsBag(t *testing.T) {
	d := &models.Data{Task: models.Runtime, Features: []string{"x"}}
	for i := 0; i < 50; i++ {
		d.X = append(d.X, []float64{float64(i)})
		d.Y = append(d.Y, float64(i*i%17))
	}
	p := Params{Trees: 1, MaxLeaves: 256, MinDataInLeaf: 1, FeatureFrac: 1, SampleFrac: 1, MaxBins: 255, Seed: 3}
	m, err := Train(context.Background(), d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for i, x := range d.X {
		got, _ := m.Predict(x)
		if got == d.Y[i] {
			seen++
		}
	}
	// A bootstrap sample of 50 from 50 holds about 63% of the rows; each is predicted exactly.
	if seen < 25 {
		t.Errorf("only %d of 50 rows reproduced", seen)
	}
}

func TestDeterministicAcrossThreads(t *testing.T) {
	d := friedman(500, 5)
	p := DefaultParams()
	p.Trees, p.Threads = 12, 1
	a, err := Train(context.Background(), d, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Threads = 4
	b, _ := Train(context.Background(), d, p, nil)
	if string(lgbText(a)) != string(lgbText(b)) || a.OOB != b.OOB {
		t.Error("the forest depends on the number of threads")
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := DefaultParams()
	if _, err := Train(ctx, friedman(300, 1), p, nil); err == nil {
		t.Error("cancelled training returned a model")
	}
}

func TestKindAndFile(t *testing.T) {
	k := models.Kinds{}
	Register(k)
	d := friedman(400, 6)
	if _, err := k["forest"].Train(context.Background(), d, nil, map[string]string{"feature_fraction": "2"}, nil); err == nil || !strings.Contains(err.Error(), "feature_fraction") {
		t.Errorf("bad fraction: %v", err)
	}
	sel := &models.Data{Task: models.Select, Classes: 2, Features: []string{"x"}, X: [][]float64{{1}, {2}}, Y: []float64{0, 1}}
	if _, err := Train(context.Background(), sel, DefaultParams(), nil); err == nil {
		t.Error("forest accepted a classification")
	}
	f, err := k["forest"].Train(context.Background(), d, nil, map[string]string{"trees": "10"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.model")
	h := &models.Header{Kind: "forest", Task: models.Runtime, Target: models.TargetLnMs, Features: d.Features}
	if err := models.Save(path, h, f); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, k)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := f.(*Model).Predict(d.X[3])
	if got, _ := m.Regressor.Predict(d.X[3]); math.Abs(got-math.Exp(want)) > 1e-9*math.Exp(want) {
		t.Errorf("loaded forest predicts %v, want exp(%v)", got, want)
	}
	if !strings.Contains(string(m.Header.Hyper), `"oob_l2"`) {
		t.Errorf("header lacks the OOB error: %s", m.Header.Hyper)
	}
}

// lgbText is m's LightGBM text, the payload MarshalBinary writes.
func lgbText(m *Model) []byte {
	b, _ := m.MarshalBinary()
	return b
}
