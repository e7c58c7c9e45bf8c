package train

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/models"
	"smart/models/kinds"
)

// testOCs are the OCs of the synthetic data sets.
var testOCs = []smart.Combination{0, smart.Combination(smart.ST), smart.Combination(smart.ST | smart.RT), smart.Combination(smart.BM), smart.Combination(smart.TB)}

// synthTime is the made-up cost model of the synthetic data sets: the best OC depends on the
// stencil's order and size, the setting's block width matters, and the GPU scales by bandwidth.
func synthTime(st *smart.Stencil, oc smart.Combination, s smart.Setting, g smart.GPU, rng *rand.Rand) float64 {
	r, nnz := float64(st.Order()), float64(st.NNZ())
	t := nnz * 0.01 * 1555 / g.BandwidthGBs
	switch oc {
	case smart.Combination(smart.ST):
		t *= 0.5 + 0.15*r
	case smart.Combination(smart.ST | smart.RT):
		t *= 0.3 + 0.25*r
	case smart.Combination(smart.BM):
		t *= 0.35 + 6/nnz
	case smart.Combination(smart.TB):
		t *= 0.55 + 0.1*r*r
	}
	t *= 1 + 0.1*math.Abs(math.Log2(float64(s[smart.ParamBlockX]))-7)
	return t * math.Exp(0.02*rng.NormFloat64())
}

// randomSetting draws a setting with the parameters of oc.
func randomSetting(dims int, oc smart.Combination, rng *rand.Rand) smart.Setting {
	s := smart.Setting{}
	pick := func(v ...int) int { return v[rng.IntN(len(v))] }
	for _, n := range smart.ParamNames(dims, oc) {
		switch n {
		case smart.ParamBlockX:
			s[n] = pick(32, 64, 128, 256)
		case smart.ParamShared, smart.ParamConst:
			s[n] = pick(0, 1)
		case smart.ParamStreamD:
			s[n] = dims
		case smart.ParamStreamB:
			s[n] = pick(8, 16, 32)
		default:
			s[n] = pick(1, 2, 4)
		}
	}
	return s
}

// synthDataSet writes a labelled simulated data set of n 3-D stencils on the given GPUs.
func synthDataSet(t testing.TB, n int, gpus []string, seed uint64) string {
	t.Helper()
	return synthDataSetFrom(t, n, gpus, seed, smart.Simulated)
}

// synthDataSetFrom is synthDataSet with rows that claim the given source.
func synthDataSetFrom(t testing.TB, n int, gpus []string, seed uint64, source smart.Source) string {
	t.Helper()
	return synthDataSetWith(t, n, gpus, seed, source, dataset.Constants{})
}

// synthDataSetWith is synthDataSetFrom whose devices record the analytic model's constants c.
func synthDataSetWith(t testing.TB, n int, gpus []string, seed uint64, source smart.Source, c dataset.Constants) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "synth")
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	meta := dataset.Meta{Sources: []smart.Source{source}, Params: dataset.StencilParams(), AllowMixed: len(gpus) > 1}
	for _, g := range gpus {
		meta.Devices = append(meta.Devices, dataset.Device{GPU: g, Name: g + " (synthetic test formula)", Constants: c})
	}
	w, err := dataset.Create(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	stencils, err := dataset.RandomStencils(n, 3, 4, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 77))
	for _, st := range stencils {
		if err := w.AddStencil(st); err != nil {
			t.Fatal(err)
		}
		for _, g := range gpus {
			gpu, err := cat.Lookup(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, oc := range testOCs {
				for k := 0; k < 4; k++ {
					set := randomSetting(3, oc, rng)
					m := smart.Measurement{StencilID: st.ID(), GPU: g, Device: g + " (synthetic test formula)", OC: oc, Setting: set,
						Status: smart.StatusOK, TimeMs: synthTime(st, oc, set, gpu, rng), Source: source}
					if w.Has(m) {
						continue
					}
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

// savedModel fits kind on set, saves the model and loads it back, as smart train and smart eval do.
func savedModel(t testing.TB, set *Set, kind string, params map[string]string) *models.Model {
	t.Helper()
	f, h, err := Fit(context.Background(), kinds.All(), kind, set, params, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m")
	if err := models.Save(path, h, f); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, kinds.All())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
