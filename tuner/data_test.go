package tuner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"smart"
	"smart/catalog"
	"smart/data"
	"smart/internal/ktdata"
	"smart/models"
	"smart/models/roofline"
)

// TestKernelTunerReplay tunes a real measured space. The optimum is the smallest "time" of the
// cache, read independently with Python:
//
//	min(v["time"] for v in c.values() if not isinstance(v["time"], str))
//
// and on convolution A100 it is the only setting within 95% of itself, so reaching 95% means
// finding it exactly.
func TestKernelTunerReplay(t *testing.T) {
	path := filepath.Join(ktdata.Require(t, "convolution_milo"), "convolution_milo", "A100.json.gz")
	ctx := context.Background()
	k, err := OpenKernelTuner(ctx, path, "")
	if err != nil {
		t.Fatal(err)
	}
	opt, n, err := Optimum(ctx, k.Problem())
	if err != nil {
		t.Fatal(err)
	}
	if opt != 0.5536000076681376 || n != 4362 {
		t.Errorf("optimum %v over %d settings; want 0.5536000076681376 over 4362", opt, n)
	}
	want := smart.Setting{"block_size_x": 32, "block_size_y": 4, "tile_size_x": 1, "tile_size_y": 3, "read_only": 1,
		"use_padding": 0, "use_shmem": 1, "use_cmem": 1, "filter_height": 15, "filter_width": 15}
	for _, m := range []Method{&Pipeline{}, &Bayes{}} {
		res, err := Search(ctx, k.Problem(), Budget{Evaluations: 400, Target: opt / 0.95}, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != StopTarget || res.Best.Setting.String() != want.String() {
			t.Errorf("%s: after %d evaluations (%s) the best is %s at %v ms; want %s", m.Name(), res.Evaluations, res.Stop, res.Best.Setting, res.Best.Value, want)
		}
		if res.Best.Measurement.Source != smart.Imported || res.Best.Measurement.Device != "NVIDIA A100-PCIE-40GB" {
			t.Errorf("%s: the best says it comes from %s on %q", m.Name(), res.Best.Measurement.Source, res.Best.Measurement.Device)
		}
	}
}

// TestStencilPipeline tunes a stencil over two OCs on the analytic model, pruning on the same
// model as the surrogate: every strategy stays within its budget and reports simulated times.
func TestStencilPipeline(t *testing.T) {
	ctx := context.Background()
	st, cat, gpu := sampleStencil(t)
	ocs := []smart.Combination{smart.Combination(smart.ST), 0}
	vs, err := StencilVariants(ctx, st, ocs, gpu)
	if err != nil {
		t.Fatal(err)
	}
	ev := roofline.Evaluator{Catalog: cat}
	p := Problem{Variants: vs, Evaluator: ev, Stencil: st, GPU: gpu.Name}
	for _, m := range []Method{&Pipeline{Surrogate: ev}, &Pipeline{}, &Bayes{}, &IterML{Model: Trees}, &Random{}} {
		res, err := Search(ctx, p, Budget{Evaluations: 40}, m, 1)
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		if res.Evaluations > 40 || res.Best.Setting == nil || res.Best.Measurement.Source != smart.Simulated {
			t.Errorf("%s: %d evaluations, best %s from %q", m.Name(), res.Evaluations, res.Best.Setting, res.Best.Measurement.Source)
		}
	}
}

func sampleStencil(t *testing.T) (*smart.Stencil, *catalog.Catalog, smart.GPU) {
	t.Helper()
	b, err := data.StencilFile("j3d7pt")
	if err != nil {
		t.Fatal(err)
	}
	st, err := smart.ParseStencil(b, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cat.Lookup("A100-40GB")
	if err != nil {
		t.Fatal(err)
	}
	return st, cat, gpu
}

// fixedClassifier answers the same probabilities for every stencil.
type fixedClassifier []float64

func (f fixedClassifier) PredictProba(row []float64) ([]float64, error) { return f, nil }
func (f fixedClassifier) PredictProbaBatch(rows [][]float64) ([][]float64, error) {
	out := make([][]float64, len(rows))
	for i := range out {
		out[i] = f
	}
	return out, nil
}

func TestRankOCs(t *testing.T) {
	st, _, gpu := sampleStencil(t)
	ST, RT := smart.Combination(smart.ST), smart.Combination(smart.ST|smart.RT)
	BM := smart.Combination(smart.BM)
	clf := &models.Model{
		Header: models.Header{Task: models.Select, Inputs: &models.Inputs{Dims: 3, MaxOrder: smart.DefaultMaxOrder, Stencil: true},
			Classes: []models.Class{{OC: ST, Members: []smart.Combination{RT, ST}}, {OC: 0, Members: []smart.Combination{0}}}},
		Classifier: fixedClassifier{0.3, 0.7},
	}
	got, err := RankOCs(clf, st, gpu, []smart.Combination{BM, ST, 0, RT})
	if err != nil {
		t.Fatal(err)
	}
	// BASE is likelier; the ST class puts its own OC before its merged member; BM, in no class,
	// keeps its place at the end.
	if want := []smart.Combination{0, ST, RT, BM}; !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
	if _, err := RankOCs(&models.Model{}, st, gpu, nil); !errors.Is(err, ErrNotClassifier) {
		t.Error("a model without a classifier ranked OCs")
	}
}
