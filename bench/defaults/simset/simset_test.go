package simset

import (
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
	"smart/calibrate"
	"smart/catalog"
	"smart/data"
	"smart/dataset"
	"smart/generator"
	"smart/models/roofline"
	"smart/predict"
	"smart/space"
)

// TestFitsMatchesGPUSpaces holds the union space filtered by the fitter equal to each GPU's own
// space, on small grids where both can be listed in full: the premise of Draw.
func TestFitsMatchesGPUSpaces(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	gpus, err := Trained(cat)
	if err != nil {
		t.Fatal(err)
	}
	union := Union(gpus)
	box4 := shape(t, "box", 3, 3, [3]int{24, 24, 24})
	star2 := shape(t, "star", 2, 2, [3]int{96, 64, 1})
	cases := []struct {
		st  *smart.Stencil
		ocs []smart.Combination
	}{
		{box4, []smart.Combination{0, smart.Combination(smart.TB), smart.Combination(smart.ST | smart.TB), smart.Combination(smart.ST | smart.RT | smart.PR | smart.TB)}},
		{star2, []smart.Combination{smart.Combination(smart.ST), smart.Combination(smart.BM | smart.TB), smart.Combination(smart.ST | smart.CM | smart.TB)}},
	}
	for _, c := range cases {
		f := newFitter(c.st)
		for _, oc := range c.ocs {
			u, err := space.ForStencil(c.st, oc, union)
			if err != nil {
				t.Fatal(err)
			}
			all := map[string]bool{}
			for s := range u.All() {
				all[s.String()] = true
			}
			differ := 0
			for _, g := range gpus {
				own, err := space.ForStencil(c.st, oc, g)
				if err != nil {
					t.Fatal(err)
				}
				want := map[string]bool{}
				for s := range own.All() {
					want[s.String()] = true
					if !all[s.String()] {
						t.Fatalf("%s %s: %s is valid on %s but not in the union space", c.st.Name, oc, s, g.Name)
					}
				}
				got := 0
				for s := range u.All() {
					if f.fits(oc, s, g) {
						got++
						if !want[s.String()] {
							t.Fatalf("%s %s: fits accepts %s on %s, which its space rejects", c.st.Name, oc, s, g.Name)
						}
					}
				}
				if got != len(want) {
					t.Fatalf("%s %s on %s: fits keeps %d settings, the space has %d", c.st.Name, oc, g.Name, got, len(want))
				}
				if len(want) != len(all) {
					differ++
				}
			}
			t.Logf("%s %s: union %d settings, %d of %d GPUs have fewer", c.st.Name, oc, len(all), differ, len(gpus))
		}
	}
}

// TestDrawUniform draws from a union space through Draw many times, for a GPU whose space is
// smaller than the union, and checks that every valid setting comes up about equally often
// (chi-square) and no invalid one ever does.
func TestDrawUniform(t *testing.T) {
	st := shape(t, "box", 3, 3, [3]int{24, 24, 24})
	cat, _ := catalog.Default()
	g, err := cat.Lookup("P100")
	if err != nil {
		t.Fatal(err)
	}
	oc := smart.Combination(smart.TB)
	gpus, err := Trained(cat)
	if err != nil {
		t.Fatal(err)
	}
	u, err := space.ForStencil(st, oc, Union(gpus))
	if err != nil {
		t.Fatal(err)
	}
	own, err := space.ForStencil(st, oc, g)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := own.Len()
	if nu, _ := u.Len(); n >= nu {
		t.Fatalf("%s's space (%d) is not smaller than the union (%d); the test needs a case the filter changes", g.Name, n, nu)
	}
	counts := map[string]int{}
	rng := rand.New(rand.NewPCG(1, 2))
	const draws, per = 1000, 4
	for range draws {
		out, err := Draw(st, oc, u, []smart.GPU{g}, per, rng)
		if err != nil {
			t.Fatal(err)
		}
		if len(out[0]) != per {
			t.Fatalf("drew %d settings, want %d", len(out[0]), per)
		}
		for _, s := range out[0] {
			if err := own.Check(s); err != nil {
				t.Fatalf("drew %s, invalid on %s: %v", s, g.Name, err)
			}
			counts[s.String()]++
		}
	}
	expect := float64(draws*per) / float64(n)
	chi := 0.0
	for s := range own.All() {
		d := float64(counts[s.String()]) - expect
		chi += d * d / expect
	}
	// n-1 degrees of freedom: mean n-1, standard deviation sqrt(2(n-1)); 5 deviations is far.
	if limit := float64(n-1) + 5*math.Sqrt(2*float64(n-1)); chi > limit {
		t.Fatalf("chi-square %.1f over %d settings exceeds %.1f: the draw is not uniform", chi, n, limit)
	}
}

// shape builds a named stencil on a small grid.
func shape(t *testing.T, name string, dims, order int, grid [3]int) *smart.Stencil {
	t.Helper()
	offs, err := generator.Named(name, dims, order)
	if err != nil {
		t.Fatal(err)
	}
	st, err := smart.NewStencil(name, dims, offs, nil, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	st.Grid = grid
	if err := st.Validate(smart.Limits{}); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBuild simulates two small stencils on two GPUs and reads the data set back.
func TestBuild(t *testing.T) {
	cat, _ := catalog.Default()
	var gpus []smart.GPU
	for _, name := range []string{"V100", "L4"} {
		g, err := cat.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		gpus = append(gpus, g)
	}
	dir := filepath.Join(t.TempDir(), "sim")
	sts, err := Build(context.Background(), dir, Options{Dims: 2, Stencils: 2, Samples: 2, Seed: 5, GPUs: gpus})
	if err != nil {
		t.Fatal(err)
	}
	meta, rows, err := dataset.ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Devices) != 2 || meta.Sources[0] != smart.Simulated {
		t.Fatalf("meta: %+v", meta)
	}
	per := map[string]int{}
	for _, m := range rows {
		if m.Source != smart.Simulated {
			t.Fatalf("row source %s", m.Source)
		}
		if m.OK() {
			per[m.GPU]++
		}
	}
	want := len(sts) * len(smart.Combinations()) * 2
	for _, g := range gpus {
		if per[g.Name] < want*9/10 || per[g.Name] > want {
			t.Errorf("%s: %d ok rows, want about %d", g.Name, per[g.Name], want)
		}
	}
}

// Trained names the GPUs every embedded default model lists as trained on, in their order.
func TestTrainedAreTheManifests(t *testing.T) {
	cat, _ := catalog.Default()
	gpus, err := Trained(cat)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range gpus {
		names = append(names, g.Name)
	}
	b, err := data.ModelFile(predict.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	man, err := predict.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range man.Models {
		if !slices.Equal(m.Training.GPUs, names) {
			t.Errorf("%s is trained on %v; Trained gives %v", m.File, m.Training.GPUs, names)
		}
	}
}

// TestStale: a data set Build wrote agrees with the model that wrote it, row by row; under
// other constants (what a change of the model's code amounts to) the first row checked differs.
func TestStale(t *testing.T) {
	cat, _ := catalog.Default()
	g, err := cat.Lookup("T4")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sim")
	opt := Options{Dims: 2, Stencils: 1, Samples: 2, Seed: 5, GPUs: []smart.GPU{g}}
	if _, err := Build(context.Background(), dir, opt); err != nil {
		t.Fatal(err)
	}
	if why, err := Stale(context.Background(), dir, opt, 1); err != nil || why != "" {
		t.Fatalf("the data set as built: %q (%v); want it current", why, err)
	}
	other := opt
	other.Calibration = &roofline.Calibration{CopyEfficiency: 0.5, PeakEfficiency: 0.5, DRAMLatency: 800, OnChipLatency: 100,
		L1Latency: 100, OnChipScale: 2, L1Scale: 2, ComputeScale: 3, BarrierStream: 300, BarrierTiled: 300, LaunchUs: 5, WavePower: 1, RegScale: 1}
	why, err := Stale(context.Background(), dir, other, 1)
	if err != nil || !strings.Contains(why, "ms now") {
		t.Errorf("under other constants: %q (%v); want the first timed row described", why, err)
	}

	// The same times, but recorded as other constants, or as none (a data set from before data
	// sets recorded them): stale, so that the models trained on it name the right ones.
	named := opt
	named.Origin = dataset.Constants{Origin: dataset.ConstantsCalibration, File: "cal.json", SHA256: "0123456789ab"}
	if why, err := Stale(context.Background(), dir, named, 1); err != nil || !strings.Contains(why, "records the literature's constants on T4, the options the constants of calibration cal.json") {
		t.Errorf("other recorded constants: %q (%v); want them named", why, err)
	}
	meta, err := dataset.ReadMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	meta.Devices[0].Constants = dataset.Constants{}
	b, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meta.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if why, err := Stale(context.Background(), dir, opt, 1); err != nil || !strings.Contains(why, "records unknown constants (not recorded) on T4") {
		t.Errorf("no constants recorded: %q (%v); want it stale", why, err)
	}
}

// TestBuildRecordsConstants: a data set simulated with the literature's constants and one with a
// calibration file's say so, the calibration by its path and content hash; a merge refuses to
// make one device of the two, and a mixed merge keeps both and says it is mixed.
func TestBuildRecordsConstants(t *testing.T) {
	ctx := context.Background()
	cat, _ := catalog.Default()
	g, err := cat.Lookup("T4")
	if err != nil {
		t.Fatal(err)
	}
	embedded, _, err := calibrate.DefaultOrigin()
	if err != nil {
		t.Fatal(err)
	}
	calPath := filepath.Join(t.TempDir(), "cal.json")
	if err := calibrate.Write(calPath, embedded, false); err != nil {
		t.Fatal(err)
	}
	cal, origin, err := calibrate.ReadOrigin(calPath)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Dims: 2, Stencils: 1, Samples: 1, Seed: 5, GPUs: []smart.GPU{g}}
	lit := filepath.Join(t.TempDir(), "lit")
	if _, err := Build(ctx, lit, opt); err != nil {
		t.Fatal(err)
	}
	calibrated := filepath.Join(t.TempDir(), "calibrated")
	opt.Calibration, opt.Origin = &cal.Calibration, origin
	if _, err := Build(ctx, calibrated, opt); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]dataset.Constants{lit: {Origin: dataset.ConstantsLiterature}, calibrated: origin} {
		meta, err := dataset.ReadMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(meta.Devices) != 1 || meta.Devices[0].Constants != want {
			t.Errorf("%s: devices %+v; want constants %+v", dir, meta.Devices, want)
		}
	}
	if origin.File != calPath || len(origin.SHA256) != 12 {
		t.Errorf("the calibration's origin %+v; want its path and hash", origin)
	}

	_, err = dataset.Merge(ctx, filepath.Join(t.TempDir(), "m"), []string{lit, calibrated}, false)
	if err == nil || !errors.As(err, new(*dataset.MixedError)) || !strings.Contains(err.Error(), "T4, the literature's constants") ||
		!strings.Contains(err.Error(), "T4, the constants of calibration "+calPath+" (sha256 "+origin.SHA256) {
		t.Errorf("merging the two: %v; want a refusal naming both constants", err)
	}
	mixed := filepath.Join(t.TempDir(), "mixed")
	if _, err := dataset.Merge(ctx, mixed, []string{lit, calibrated}, true); err != nil {
		t.Fatal(err)
	}
	st, err := dataset.ComputeStats(context.Background(), mixed)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := st.WriteTables(&b, "mixed"); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(b.String(), "\n")
	if !strings.Contains(first, "with mixed constants: the literature's constants on T4; the constants of calibration "+calPath+" (sha256 "+origin.SHA256) {
		t.Errorf("the mixed merge's stats say %q; want both constants", first)
	}
	// A calibration without its origin is not simulated under a name it does not have.
	opt.Origin = dataset.Constants{}
	if _, err := Build(ctx, filepath.Join(t.TempDir(), "nameless"), opt); err == nil {
		t.Error("a calibration without its origin was simulated")
	}
}
