package golearn

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"smart/models"
)

// steps is a piecewise-constant target on a grid: a tree can fit it exactly, and the nearest
// neighbours of a grid point are its own duplicates.
func steps(n int, seed uint64) *models.Data {
	rng := rand.New(rand.NewPCG(seed, 9))
	d := &models.Data{Task: models.Runtime, Features: []string{"a", "b"}}
	for i := 0; i < n; i++ {
		x := []float64{float64(rng.IntN(8)), float64(rng.IntN(4))}
		y := 1.0
		if x[0] >= 4 {
			y += 2
		}
		if x[1] >= 2 {
			y += 0.5
		}
		d.X = append(d.X, x)
		d.Y = append(d.Y, y)
	}
	return d
}

func TestCARTFitsSteps(t *testing.T) {
	d := steps(300, 1)
	c, err := TrainCART(context.Background(), d, DefaultCART())
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.PredictBatch(d.X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-d.Y[i]) > 1e-12 {
			t.Fatalf("row %v: %v, want %v", d.X[i], got[i], d.Y[i])
		}
	}
	single, _ := c.Predict([]float64{6, 3})
	if single != 3.5 {
		t.Errorf("Predict(6, 3) = %v, want 3.5", single)
	}
}

func TestCARTCapsRows(t *testing.T) {
	d := steps(5000, 2)
	p := DefaultCART()
	p.MaxRows = 500
	c, err := TrainCART(context.Background(), d, p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Params.RowsUsed != 500 {
		t.Errorf("fitted on %d rows, cap 500", c.Params.RowsUsed)
	}
}

func TestKNNMeanOfNeighbours(t *testing.T) {
	d := &models.Data{Task: models.Runtime, Features: []string{"x"},
		X: [][]float64{{0}, {1}, {2}, {10}, {11}}, Y: []float64{1, 2, 3, 10, 20}}
	p := DefaultKNN()
	p.K = 2
	k, err := TrainKNN(context.Background(), d, p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ x, want float64 }{{0.1, 1.5}, {1.9, 2.5}, {10.6, 15}, {100, 15}}
	for _, tc := range tests {
		if got, err := k.Predict([]float64{tc.x}); err != nil || got != tc.want {
			t.Errorf("Predict(%v) = %v, %v; want %v", tc.x, got, err, tc.want)
		}
	}
	p.K = 9
	if _, err := TrainKNN(context.Background(), d, p); err == nil || !strings.Contains(err.Error(), "only 5") {
		t.Errorf("k > rows: %v", err)
	}
}

// TestSaveLoad round-trips both kinds through smart's model file; knn is normalised on load.
func TestSaveLoad(t *testing.T) {
	kinds := models.Kinds{}
	Register(kinds)
	d := steps(400, 3)
	for _, kind := range []string{"cart", "knn"} {
		train := d
		var norm *models.Scale
		if kinds[kind].Normalize {
			norm = models.FitScale(d.X)
			train = &models.Data{Task: d.Task, Features: d.Features, X: norm.ApplyAll(d.X), Y: d.Y}
		}
		f, err := kinds[kind].Train(context.Background(), train, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), kind+".model")
		h := &models.Header{Kind: kind, Task: models.Runtime, Target: models.TargetLnMs, Features: d.Features, Norm: norm}
		if err := models.Save(path, h, f); err != nil {
			t.Fatal(err)
		}
		m, err := models.Load(path, kinds)
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Regressor.PredictBatch(d.X[:50])
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-math.Exp(d.Y[i])) > 1e-9 {
				t.Fatalf("%s row %v: %v, want exp(%v)", kind, d.X[i], got[i], d.Y[i])
			}
		}
	}
}

func TestBadPayloads(t *testing.T) {
	h := &models.Header{Kind: "cart", Task: models.Runtime, Target: models.TargetLnMs, Features: []string{"a", "b"}}
	bad := []struct {
		name    string
		decode  models.DecodeFunc
		payload string
	}{
		{"cart not json", DecodeCART, "{"},
		{"cart wrong width", DecodeCART, `{"params":{},"cols":3,"root":{}}`},
		{"cart feature out of range", DecodeCART, `{"params":{"criterion":"mse"},"cols":2,"root":{"Feature":0,"Left":{"Feature":7}}}`},
		{"cart no tree", DecodeCART, `{"params":{},"cols":2,"root":null}`},
		{"knn garbage", DecodeKNN, "garbage"},
	}
	for _, tc := range bad {
		if _, err := tc.decode(h, []byte(tc.payload)); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
	kinds := models.Kinds{}
	Register(kinds)
	d := steps(50, 4)
	for _, tc := range []struct {
		kind, param, value string
	}{{"cart", "criterion", "gini"}, {"cart", "max_depth", "0"}, {"knn", "distance", "cosine"}, {"knn", "k", "0"}, {"knn", "depth", "3"}} {
		if _, err := kinds[tc.kind].Train(context.Background(), d, nil, map[string]string{tc.param: tc.value}, nil); err == nil {
			t.Errorf("%s %s=%s accepted", tc.kind, tc.param, tc.value)
		}
	}
}
