package main

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
	"smart/transfer"
)

// TestBaseline: a source at half the target's times, the target's GPU with twice the
// bandwidth: the bandwidth ratio (k = 0) predicts a quarter of each time, 75% off; any median
// of drawn ratios (k > 0) predicts them exactly.
func TestBaseline(t *testing.T) {
	src := transfer.Source{GPU: smart.GPU{Name: "S", BandwidthGBs: 1000}}
	var target []smart.Measurement
	for i := 1; i <= 10; i++ {
		s := smart.Setting{"a": i}
		src.Rows = append(src.Rows, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: float64(i)})
		target = append(target, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: 2 * float64(i)})
	}
	tgt := smart.GPU{Name: "T", BandwidthGBs: 2000}
	if got := baseline([]transfer.Source{src}, tgt, target, 0); math.Abs(got-75) > 1e-9 {
		t.Errorf("k=0: MAPE %g, want 75", got)
	}
	if got := baseline([]transfer.Source{src}, tgt, target, 4); math.Abs(got) > 1e-9 {
		t.Errorf("k=4: MAPE %g, want 0", got)
	}
}

func TestMeanScoreSkipsMissingCoverage(t *testing.T) {
	half := 0.5
	m := meanScore([]transfer.Score{{N: 2, MAPE: 10, Top1: 1, Coverage: &half}, {N: 3, MAPE: 20, Top1: 0.5}})
	if m.N != 5 || m.MAPE != 15 || m.Top1 != 0.75 || m.Coverage == nil || *m.Coverage != 0.5 {
		t.Errorf("mean %+v (coverage %v)", m, m.Coverage)
	}
}

// TestPaired: a stencil counts where the source measured it and the target holds at least
// minPaired rows; in order of the target's stencils.
func TestPaired(t *testing.T) {
	rows := func(n int) []smart.Measurement { return make([]smart.Measurement, n) }
	byA := map[string][]smart.Measurement{"a": rows(5), "b": rows(120), "c": rows(120)}
	byB := map[string][]smart.Measurement{"a": rows(minPaired), "b": rows(minPaired - 1), "c": rows(120), "d": rows(120)}
	if got := paired(byA, byB); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("paired = %v, want [a c] (b begun on the target, d not on the source)", got)
	}
}

// openKT takes every cache of a kernel's folder as a GPU, in name order: a cache that names no
// device by its file name, and leaves out T4 files, space.json and a GPU the catalogue lacks.
func TestOpenKT(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cache := func(device string) string {
		name := ""
		if device != "" {
			name = `"device_name":"` + device + `",`
		}
		return `{` + name + `"kernel_name":"k","tune_params_keys":["bx"],"tune_params":{"bx":[16,32]},"cache":{"16":{"time":1.0},"32":{"time":2.0}}}`
	}
	for name, content := range map[string]string{
		"b.json":        cache("NVIDIA RTX A6000"),
		"MI250X.json":   cache(""),
		"a.json":        cache("NVIDIA A100-PCIE-40GB"),
		"z.json":        cache("NVIDIA Z9000"),
		"a_T4.json":     `{"results":[]}`,
		"space.json":    `{"ConfigurationSpace":{"TuningParameters":[{"Name":"bx","Values":"[16, 32]"}]}}`,
		"README.md":     "not a cache",
		"notes.txt.bak": "",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	files, err := openKT(dir, cat)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.GPU.Name)
	}
	if want := []string{"MI250X", "A100-40GB", "RTX-A6000"}; !slices.Equal(got, want) {
		t.Errorf("GPUs %v; want %v", got, want)
	}
	os.Remove(filepath.Join(dir, "a.json"))
	os.Remove(filepath.Join(dir, "b.json"))
	if _, err := openKT(dir, cat); err == nil || !strings.Contains(err.Error(), "1 caches of catalogued GPUs") {
		t.Errorf("one GPU left: %v", err)
	}
}

// TestIntervalSummaries: the stencil rows' interval width is the median of the stencils' and
// their stated level the mean; none without intervals.
func TestIntervalSummaries(t *testing.T) {
	two, three, half := 2.0, 3.0, 0.5
	var ws []float64
	for _, w := range []*float64{&three, nil, &two, &half} {
		ws = appendWidth(ws, w)
	}
	if m := medianWidth(slices.Clone(ws)); m == nil || *m != 2 {
		t.Errorf("median of %v: %v, want 2", ws, m)
	}
	if m := medianWidth([]float64{3, 0.5}); m == nil || *m != 1.75 {
		t.Errorf("median of 3 and 0.5: %v, want 1.75", m)
	}
	if m := mean(ws); m == nil || math.Abs(*m-5.5/3) > 1e-12 {
		t.Errorf("mean of %v: %v, want %g", ws, m, 5.5/3)
	}
	if medianWidth(nil) != nil || mean(nil) != nil {
		t.Error("a summary of no intervals")
	}
}
