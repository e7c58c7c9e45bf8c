package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/generator"
	"smart/internal/atomicfile"
	"smart/models"
	"smart/models/roofline"
	"smart/space/spacetest"
)

// synthetic returns a group per named stencil whose times a known calibration makes, with
// log-normal noise of sd sigma.
func synthetic(t *testing.T, truth *roofline.Calibration, g smart.GPU, sigma float64, names ...string) []*Group {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	var out []*Group
	for _, name := range names {
		sps := spacetest.Named(t, name, g)
		if len(sps) == 0 {
			t.Fatalf("%s has no setting space on the %s", name, g.Name)
		}
		st := sps[0].Stencil
		grp := &Group{GPU: g.Name, Stencil: name, ID: st.ID()}
		for _, sp := range sps {
			for range 2 {
				s, err := sp.Space.Random(rng)
				if err != nil {
					break
				}
				tu, err := smart.DecodeTuning(st.Dims, sp.OC, s)
				if err != nil {
					t.Fatal(err)
				}
				e, err := roofline.ModelWith(st, tu, g, truth)
				if err != nil {
					continue
				}
				grp.Samples = append(grp.Samples, roofline.StencilSample{Stencil: st, Tuning: tu, GPU: g, TimeMs: e.TimeMs * math.Exp(sigma*rng.NormFloat64())})
				grp.OCs, grp.Settings = append(grp.OCs, sp.OC), append(grp.Settings, s)
			}
		}
		out = append(out, grp)
	}
	return out
}

// TestFitHeldOut: on times a known calibration made, with noise, the held-out scores beat the
// literature's, and the interval is about as wide as the noise and covers about its level.
func TestFitHeldOut(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, _ := cat.Lookup("H100-SXM")
	truth := &roofline.Calibration{CopyEfficiency: 0.9, PeakEfficiency: 0.8, CopyGBs: map[string]float64{g.Name: 3000}, DRAMLatency: 900,
		OnChipLatency: 60, L1Latency: 50, OnChipScale: 1.5, L1Scale: 2, ComputeScale: 3, BarrierStream: 300, BarrierTiled: 80,
		LaunchUs: 6, SpillCycles: 2, Overlap: 4, Narrow: 1, WavePower: 0.7, RegScale: 1}
	const sigma = 0.1
	fit := &Data{Groups: synthetic(t, truth, g, sigma, "j2d5pt", "j3d7pt", "j3d27pt"), CopyGBs: truth.CopyGBs, Sources: []Source{{Dir: "synthetic", GPU: g.Name}}}
	test := &Data{Groups: synthetic(t, truth, g, sigma, "j2d9pt"), CopyGBs: map[string]float64{"H200": 4200}}
	var calls []int
	f, err := Fit(context.Background(), fit, test, Settings{Level: 0.8, Progress: func(done, total int) {
		if total != 4 {
			t.Errorf("progress total %d; want 3 stencils left out + 1", total)
		}
		calls = append(calls, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(calls, []int{1, 2, 3, 4}) {
		t.Errorf("progress calls %v", calls)
	}
	if len(f.LeaveOneOut) != 3 || len(f.Test) != 1 || f.Format != Format {
		t.Fatalf("%d held-out scores, %d tests, format %q", len(f.LeaveOneOut), len(f.Test), f.Format)
	}
	for _, s := range append(f.LeaveOneOut, f.Test...) {
		if s.After.MAPE >= s.Before.MAPE || s.After.MAPE > 0.5 {
			t.Errorf("%s: MAPE %.2f fitted, %.2f literature; want the fit closer", s.Stencil, s.After.MAPE, s.Before.MAPE)
		}
	}
	iv := f.Interval
	if !(iv.LogLo < 0 && iv.LogHi > 0 && iv.LogHi-iv.LogLo < 1.2 && iv.LogHi-iv.LogLo > 2*1.28*sigma*0.8) || iv.Stencils != 3 {
		t.Errorf("interval %+v; want about ±%.2f (the noise's 80%%) plus the fit's own error", iv, 1.28*sigma)
	}
	again := *f
	again.Test, again.TestedOn = nil, nil
	again.ScoreTest(context.Background(), test)
	if !reflect.DeepEqual(again.Test, f.Test) {
		t.Errorf("ScoreTest of the fitted file %+v; Fit's %+v", again.Test, f.Test)
	}
	if c := f.Test[0].Coverage; c < 0.6 {
		t.Errorf("coverage on the test stencil %.2f; want near 0.8", c)
	}
	if f.Calibration.CopyGBs["H200"] != 4200 || f.Calibration.CopyGBs[g.Name] != 3000 {
		t.Errorf("copy bandwidths %v; want the fit's and the test's measured ones", f.Calibration.CopyGBs)
	}
	if err := f.Calibration.Check(); err != nil {
		t.Errorf("a fitted calibration fails its own check: %v", err)
	}
	// The range the interval was measured on, and what lies beyond it.
	if r := f.Range; r == nil || r.Stencils != 3 || r.Orders != [2]int{1, 1} || !reflect.DeepEqual(r.GPUs, []string{g.Name}) {
		t.Errorf("range %+v; want the 3 stencils of order 1 on the %s", f.Range, g.Name)
	}
	j3d7pt := fit.Groups[1].Samples[0].Stencil
	order2, err := generator.NamedStencil("j3d13pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		st   *smart.Stencil
		gpu  string
		want []string
	}{
		{j3d7pt, g.Name, nil},
		{j3d7pt, "V100", []string{"the V100 is not among the GPUs the interval was measured on (H100-SXM)"}},
		{order2, g.Name, []string{"order 2 is outside the trained orders 1-1"}},
	} {
		if got := f.Beyond(c.st, c.gpu); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Beyond(%s, %s) = %q; want %q", c.st.Name, c.gpu, got, c.want)
		}
	}

	// Round trip, and what Write refuses.
	dir := t.TempDir()
	path := filepath.Join(dir, "cal.json")
	if err := Write(path, f, false); err != nil {
		t.Fatal(err)
	}
	back, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, f) {
		t.Errorf("round trip changed the calibration:\n%+v\n%+v", back, f)
	}
	if err := Write(path, f, false); err != nil {
		t.Errorf("replacing a calibration file: %v", err)
	}
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes"), 0o644)
	if err := Write(notes, f, false); !errors.As(err, new(*atomicfile.NotOursError)) {
		t.Errorf("writing over a notes file: %v; want a *atomicfile.NotOursError", err)
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes" {
		t.Errorf("the notes file was changed: %q", b)
	}
	if err := Write(notes, f, true); err != nil {
		t.Errorf("replace: %v", err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	good, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, edit, want string
	}{
		{"format", `"format": "smart-calibration/1"=>"format": "smart-calibration/9"`, `format "smart-calibration/9"`},
		{"constant", `"compute_scale": =>"compute_scale": 1e9, "x_": `, "unknown field"},
		{"bound", `"launch_us": =>"launch_us": 1e9, "launch_us_": `, "unknown field"},
		{"level", `"level": 0.8=>"level": 1.5`, "interval level 1.5"},
		{"fitted_on", `"fitted_on": [=>"fitted_on": [], "x": [`, "unknown field"},
		{"truncated", "", "cut short"},
		{"NaN", `"launch_us": =>"launch_us": NaN, "x_": `, "NaN is not a number JSON allows"},
		{"Infinity", `"launch_us": =>"launch_us": -Infinity, "x_": `, "Infinity is not a number JSON allows"},
		{"unknown field's fix", `"compute_scale": =>"compute_scale": 1, "x_": `, `unknown field "x_"; a calibration file (format "smart-calibration/1") has none such`},
		{"trailing", `"format": =>"format": `, "more follows the end of the file's object"},
	} {
		text := mustJSON(t, good)
		if c.edit != "" {
			from, to, _ := strings.Cut(c.edit, "=>")
			if !strings.Contains(text, from) {
				t.Fatalf("%s: %q not in the file", c.name, from)
			}
			text = strings.Replace(text, from, to, 1)
			if c.name == "trailing" {
				text += "{}\n"
			}
		} else {
			text = text[:len(text)/2]
		}
		_, err := Decode("cal.json", strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "cal.json") {
			t.Errorf("%s: %v; want an error naming the file and %q", c.name, err, c.want)
		}
	}
	// A constant outside the bounds a fit keeps.
	bad := *good
	bad.Calibration.LaunchUs = 500
	if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &bad))); err == nil || !strings.Contains(err.Error(), "launch_us is 500") {
		t.Errorf("launch 500 us: %v", err)
	}
	// A fit before the copy efficiency was bounded by 1 went up to 1.2: its file still loads.
	older := *good
	older.Calibration.CopyEfficiency = 1.2
	if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &older))); err != nil {
		t.Errorf("copy efficiency 1.2 of an older fit: %v", err)
	}
	older.Calibration.CopyEfficiency = 1.21
	if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &older))); err == nil || !strings.Contains(err.Error(), "copy_efficiency is 1.21") {
		t.Errorf("copy efficiency 1.21: %v", err)
	}
	bad = *good
	bad.Calibration.OCScale = map[string]float64{"ST": -1}
	if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &bad))); err == nil || !strings.Contains(err.Error(), `oc_scale["ST"]`) {
		t.Errorf("negative OC factor: %v", err)
	}
	// An OC factor under a name the model never looks up would leave that OC unscaled.
	for key, want := range map[string]string{"XX": `oc_scale["XX"]: unknown optimization "XX"`, "TB_ST": `oc_scale["TB_ST"]: name the OC ST_TB`} {
		bad = *good
		bad.Calibration.OCScale = map[string]float64{"ST": 1, key: 1}
		if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &bad))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OC factor named %s: %v; want %q", key, err, want)
		}
	}
	// A copy of a good file an editor saved with a byte-order mark reads as the file.
	if f, err := Decode("cal.json", strings.NewReader("\xef\xbb\xbf"+mustJSON(t, good))); err != nil || f.Calibration.LaunchUs != good.Calibration.LaunchUs {
		t.Errorf("a byte-order mark: %v", err)
	}
	bad = *good
	bad.FittedOn = nil
	if _, err := Decode("cal.json", strings.NewReader(mustJSON(t, &bad))); err == nil || !strings.Contains(err.Error(), "fitted_on") {
		t.Errorf("no data named: %v", err)
	}
}

func mustJSON(t *testing.T, f *File) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.json")
	if err := Write(path, f, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDefaultScores: the scores the embedded calibration records on the GPUs it was tested on
// are what its constants give on the committed data sets it names.
func TestDefaultScores(t *testing.T) {
	f, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, s := range f.TestedOn {
		dirs = append(dirs, filepath.Join("..", s.Dir))
	}
	if len(dirs) == 0 {
		t.Fatal("the embedded calibration names no test data")
	}
	d, err := Load(context.Background(), dirs, cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Groups) != len(f.Test) {
		t.Fatalf("%d stencils in the test data, %d scores recorded", len(d.Groups), len(f.Test))
	}
	for i, g := range d.Groups {
		got := score(g, &f.Calibration)
		want := f.Test[i].After
		if g.Stencil != f.Test[i].Stencil || got.N != want.N || math.Abs(got.MAPE-want.MAPE) > 1e-9 || math.Abs(got.Spearman-want.Spearman) > 1e-9 {
			t.Errorf("%s: %+v from the data; the file records %s %+v", g.Stencil, got, f.Test[i].Stencil, want)
		}
		if c := models.Coverage(f.Interval, residuals(g, &f.Calibration)); math.Abs(c-f.Test[i].Coverage) > 1e-12 {
			t.Errorf("%s: coverage %v; the file records %v", g.Stencil, c, f.Test[i].Coverage)
		}
	}
}

// TestLoadRefusesSimulated: a calibration fits measurements only; a simulated row is refused,
// naming the data set and the row.
func TestLoadRefusesSimulated(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "data", "measured", "h100-sxm", "random", "j3d125pt")
	d, err := Load(context.Background(), []string{src}, cat)
	if err != nil || len(d.Groups) != 1 || d.Sources[0].Rows != len(d.Groups[0].Samples) || d.Sources[0].Rows == 0 || d.CopyGBs["H100-SXM"] == 0 {
		t.Fatalf("the measured data set: %v, %+v", err, d)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join(dir, "rows.csv")
	b, err := os.ReadFile(rows)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[2] = strings.Replace(lines[2], ",measured,", ",simulated,", 1)
	if err := os.WriteFile(rows, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(context.Background(), []string{dir}, cat)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "row 2") || !strings.Contains(err.Error(), "measured rows only") {
		t.Errorf("a simulated row: %v; want an error naming the data set, row 2 and why", err)
	}
}

// TestLoadCountsCutRows: every ok row of the campaign's data set counts, those cut short too
// (20,225 ok rows of 169 stencils, 5,746 of them cut: counted from rows.csv with Python's csv).
func TestLoadCountsCutRows(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), []string{filepath.Join("..", "data", "measured", "h100-sxm", "campaign")}, cat)
	if err != nil {
		t.Fatal(err)
	}
	samples, cut := 0, 0
	for _, g := range d.Groups {
		samples += len(g.Samples)
	}
	_, rows, err := dataset.ReadAll(filepath.Join("..", "data", "measured", "h100-sxm", "campaign"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rows {
		if m.Cut != smart.CutNone {
			cut++
		}
	}
	if len(d.Groups) != 169 || samples != 20225 || d.Sources[0].Rows != 20225 || cut != 5746 {
		t.Errorf("%d stencils, %d samples (source %d rows), %d cut; want 169, 20225, 20225, 5746", len(d.Groups), samples, d.Sources[0].Rows, cut)
	}
}

// TestFolds: the stencils are dealt into folds, a stencil on two GPUs in one, and folds that
// would leave nothing to fit on, or nothing out, are refused.
func TestFolds(t *testing.T) {
	d := &Data{}
	for _, id := range []string{"e", "a", "c", "b", "d"} {
		d.Groups = append(d.Groups, &Group{ID: id, GPU: "H100-SXM"})
	}
	d.Groups = append(d.Groups, &Group{ID: "c", GPU: "H200"})
	for _, c := range []struct{ want, k int }{{0, 5}, {2, 2}, {3, 3}, {5, 5}, {9, 5}} {
		k, err := d.Folds(c.want)
		if err != nil || k != c.k {
			t.Errorf("Folds(%d) = %d, %v; want %d", c.want, k, err, c.k)
			continue
		}
		fold := d.foldOf(k)
		size := make([]int, k)
		for i, g := range d.Groups {
			if g.GPU == "H100-SXM" {
				size[fold[i]]++
			}
		}
		if slices.Min(size) == 0 || slices.Max(size)-slices.Min(size) > 1 {
			t.Errorf("%d folds: stencils per fold %v; want every fold used, evenly", k, size)
		}
		if fold[2] != fold[5] {
			t.Errorf("%d folds: stencil c in folds %d and %d; want one", k, fold[2], fold[5])
		}
	}
	for _, want := range []int{-1, 1} {
		if _, err := d.Folds(want); err == nil {
			t.Errorf("Folds(%d) passed", want)
		}
	}
	if _, err := (&Data{Groups: d.Groups[:2]}).Folds(0); err == nil || !strings.Contains(err.Error(), "at least 3: give data sets of more stencils") {
		t.Errorf("two stencils: %v; want too few", err)
	}
	many := &Data{}
	for i := range 40 {
		many.Groups = append(many.Groups, &Group{ID: fmt.Sprint(i)})
	}
	if k, _ := many.Folds(0); k != DefaultFolds {
		t.Errorf("40 stencils: %d folds by default; want %d", k, DefaultFolds)
	}
}

// TestFitFolds: with fewer folds than stencils, each stencil is scored by the fit of the other
// folds' samples alone, on every GPU it was measured on.
func TestFitFolds(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h100, _ := cat.Lookup("H100-SXM")
	h200, _ := cat.Lookup("H200")
	truth := &roofline.Calibration{CopyEfficiency: 0.9, PeakEfficiency: 0.8, CopyGBs: map[string]float64{h100.Name: 3000, h200.Name: 4200},
		DRAMLatency: 900, OnChipLatency: 60, L1Latency: 50, OnChipScale: 1.5, L1Scale: 2, ComputeScale: 3, BarrierStream: 300,
		BarrierTiled: 80, LaunchUs: 6, SpillCycles: 2, Overlap: 4, Narrow: 1, WavePower: 0.7, RegScale: 1}
	groups := append(synthetic(t, truth, h100, 0.1, "j2d5pt", "j3d7pt", "j3d27pt", "j2d9pt"), synthetic(t, truth, h200, 0.1, "j3d7pt")...)
	fit := &Data{Groups: groups, CopyGBs: truth.CopyGBs}
	var mu sync.Mutex
	got := map[int]*roofline.Calibration{}
	total := 0
	f, err := Fit(context.Background(), fit, nil, Settings{Level: 0.8, Folds: 2,
		Progress: func(_, n int) { total = n },
		Fold: func(i int, cal *roofline.Calibration) {
			mu.Lock()
			got[i] = cal
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if total != 3 || f.Folds != 2 || len(f.LeaveOneOut) != 5 || len(got) != 5 {
		t.Fatalf("progress total %d, %d folds, %d scores, %d held-out fits; want 3, 2, 5, 5", total, f.Folds, len(f.LeaveOneOut), len(got))
	}
	fold := fit.foldOf(2)
	if fold[1] != fold[4] || got[1] != got[4] {
		t.Error("j3d7pt on the H100 and the H200: scored by different fits; want the one without it")
	}
	var in []roofline.StencilSample
	for i, g := range groups {
		if fold[i] != fold[0] {
			in = append(in, g.Samples...)
		}
	}
	want, err := roofline.FitStencil(context.Background(), in, fit.CopyGBs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("j2d5pt scored with %+v; want the fit of the other fold's stencils, %+v", got[0], want)
	}
	for i, s := range f.LeaveOneOut {
		if s.After.N == 0 || s.Coverage == 0 || s.GPU != groups[i].GPU {
			t.Errorf("score %d: %+v; want the group's rows scored and covered", i, s)
		}
	}
	var text strings.Builder
	if err := f.WriteTables(&text); err != nil || !strings.Contains(text.String(), "one of 2") || !strings.Contains(text.String(), "all 5: MAPE mean") {
		t.Errorf("the tables do not say the stencils were held out in 2 folds (%v):\n%s", err, text.String())
	}
}

func TestSummarise(t *testing.T) {
	var scores []Score
	for _, a := range []roofline.Accuracy{{MAPE: 0.2, LevelMAPE: 0.1, Spearman: 0.9, BestShare: 0.5}, {MAPE: 0.4, LevelMAPE: 0.3, Spearman: 0.5, BestShare: 0.8}, {MAPE: 0.9, LevelMAPE: 0.2, Spearman: 0.7, BestShare: 0.2}} {
		scores = append(scores, Score{After: a})
	}
	got := summarise(scores, func(s Score) roofline.Accuracy { return s.After })
	if math.Abs(got.MAPE-0.5) > 1e-12 || math.Abs(got.LevelMAPE-0.2) > 1e-12 || got.Spearman != 0.7 || math.Abs(got.BestShare-math.Cbrt(0.5*0.8*0.2)) > 1e-12 {
		t.Errorf("summary %+v; want MAPE 0.5, level MAPE 0.2, Spearman 0.7, best share the cube root of 0.08", got)
	}
}

// TestFitEndedAfterLastFit: a context that ends once every fit is done (Ctrl-C as the last one
// finishes) keeps the result: nothing was left unfitted.
func TestFitEndedAfterLastFit(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	h100, _ := cat.Lookup("H100-SXM")
	truth := &roofline.Calibration{CopyEfficiency: 0.9, PeakEfficiency: 0.8, CopyGBs: map[string]float64{h100.Name: 3000},
		DRAMLatency: 900, OnChipLatency: 60, L1Latency: 50, OnChipScale: 1.5, L1Scale: 2, ComputeScale: 3, BarrierStream: 300,
		BarrierTiled: 80, LaunchUs: 6, SpillCycles: 2, Overlap: 4, Narrow: 1, WavePower: 0.7, RegScale: 1}
	fit := &Data{Groups: synthetic(t, truth, h100, 0.1, "j2d5pt", "j3d7pt", "j2d9pt"), CopyGBs: truth.CopyGBs}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := Fit(ctx, fit, nil, Settings{Level: 0.8, Folds: 2, Progress: func(done, total int) {
		if done == total {
			cancel()
		}
	}})
	if err != nil || f == nil {
		t.Fatalf("Fit ended after its last fit: %v; want the result", err)
	}
}
