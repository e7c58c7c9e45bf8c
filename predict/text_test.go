package predict

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"smart"
	"smart/generator/generatortest"
	"smart/models"
	"smart/models/roofline"
)

// samplePrediction is a small prediction of two OCs on two GPUs, built by hand.
func samplePrediction() *Prediction {
	src := Provenance{Basis: BasisSimulated, Model: "rt-2d", Text: "simulated: trained on the analytic model's times"}
	best := &Choice{OC: smart.Combination(smart.ST), Probability: 0.75, Setting: smart.Setting{"bx": 32, "by": 8}, TimeMs: 0.5, Evaluated: 100,
		Source: src, Codegen: "smart codegen j2d5pt --oc ST --setting bx=32,by=8",
		Interval: &smart.Interval{Level: 0.8, LoMs: 0.25, HiMs: 1, From: "runtime model's held-out errors"},
		Analytic: &roofline.Estimate{TimeMs: 0.6, Bound: "memory"}}
	other := Choice{OC: smart.Combination(0), Probability: 0.25, Setting: smart.Setting{"bx": 64}, TimeMs: 2, Evaluated: 16, Source: src}
	return &Prediction{
		Stencil:     StencilInfo{Name: "j2d5pt", ID: "abc", Dims: 2, Order: 1, Points: 5, Dtype: smart.Float64, Grid: []int{64, 32}, Steps: 1000},
		GPU:         "A100-40GB",
		Classes:     []ClassProb{{OC: smart.Combination(smart.ST), Members: []smart.Combination{smart.Combination(smart.ST)}, Probability: 0.75}, {OC: 0, Members: []smart.Combination{0}, Probability: 0.25}},
		ClassSource: Provenance{Basis: BasisSimulated, Model: "select-2d", Text: "simulated"},
		Best:        best, Candidates: []Choice{*best, other}, Screened: 2,
		Measure: "smart bench j2d5pt",
		GPUs: []GPUTime{{GPU: "H100-SXM", Arch: "Hopper", Best: &Choice{OC: smart.Combination(smart.ST), TimeMs: 0.25, Source: src}},
			{GPU: "A100-40GB", Arch: "Ampere", Best: best}, {GPU: "W6600", Arch: "RDNA2", Reason: "AMD GPU"}},
		Models:        []ModelInfo{{Name: "rt-2d", Kind: "gbdt", Task: models.Runtime, Data: []models.DataRef{{Path: "sim", Rows: 10, GPUs: []string{"A100-40GB"}, Sources: map[string]int{"simulated": 10}}}}},
		Warnings:      []string{"a warning"},
		defaultSearch: true,
	}
}

// TestSameAsRecommend: the table says that smart recommend gives its times only where the
// search was recommend's (the default budget, ranking and transfer).
func TestSameAsRecommend(t *testing.T) {
	for _, def := range []bool{true, false} {
		pr := samplePrediction()
		pr.defaultSearch = def
		var b bytes.Buffer
		if err := pr.WriteText(&b, false); err != nil {
			t.Fatal(err)
		}
		same := strings.Contains(b.String(), "so smart recommend and smart predict --gpu GPU give the same times")
		differ := strings.Contains(b.String(), "smart recommend searches with the default budget, ranking and\n  transfer, and may give other times")
		if same != def || differ == def {
			t.Errorf("default search %v: says the same times %v, may differ %v", def, same, differ)
		}
	}
	p := defaultPredictor(t)
	pr, err := p.Predict(context.Background(), Input{Stencil: sample(t, "j2d5pt")}, "a100")
	if err != nil || !pr.defaultSearch {
		t.Fatalf("the default predictor's prediction (%v) does not count as recommend's search", err)
	}
	p.AnalyticWeight = 0
	if pr, err = p.Predict(context.Background(), Input{Stencil: sample(t, "j2d5pt")}, "a100"); err != nil || pr.defaultSearch {
		t.Fatalf("a prediction ranked by the runtime model alone (%v) counts as recommend's search", err)
	}
}

// TestPredictionWriteText compares what smart predict prints for one stencil with text
// checked by hand: the classes, the candidates, the choice with its interval and analytic
// time, and the table, where the A100 (0.5 ms) is 0.5x the H100 (0.25 ms).
func TestPredictionWriteText(t *testing.T) {
	want := `j2d5pt: 2-D, order 1, 5 points, grid 64x32, float64, 1000 steps (id abc)
on A100-40GB

OC classes, most probable first (select-2d, simulated)
  p      class            OCs in the class
  0.750  ST               ST
  0.250  BASE             BASE

2 OCs of the most probable classes screened on A100-40GB; the fastest of each class searched in depth (rt-2d, simulated: trained on the analytic model's times)
  OC               class p    ms/step    80% interval  analytic  scored  best setting found
  ST                0.750        0.5          0.25-1       0.6     100  bx=32,by=8
  BASE              0.250          2               -         -      16  bx=64
=> use ST: 0.5 ms per step, 0.5 s for the stencil's 1000 steps
   80% interval 0.25-1 ms per step, from the runtime model's held-out errors
   the calibrated analytic model gives 0.6 ms per step for this setting (memory-bound; smart estimate shows why)
   smart codegen j2d5pt --oc ST --setting bx=32,by=8 -o j2d5pt.cu
   on the GPU, time the 2 candidates before you choose (models misjudge real kernels):
   smart bench j2d5pt

The GPUs the models were trained on and those with a price, fastest first (each under its own best OC)
  GPU          arch             ms/step    80% interval  speedup  OC               source
  H100-SXM     Hopper              0.25               -    2.00x  ST               simulated
  A100-40GB    Ampere               0.5          0.25-1    1.00x  ST               simulated <- asked
  W6600        not predicted: AMD GPU
  (speedup: the time on the GPU asked about over this GPU's; every GPU is predicted as it would be
  if asked about, so smart recommend and smart predict --gpu GPU give the same times)
  (--all-gpus adds every other catalogued GPU, predicted from its hardware description alone)

Models
  rt-2d: gbdt runtime, trained on 10 rows (10 simulated measurements, 1 GPUs): sim
warning: a warning
`
	var b bytes.Buffer
	if err := samplePrediction().WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestScaledRatioNamed: the line of a time scaled from another GPU names the ratio's model as
// the choice's source does: the calibrated analytic model's within an architecture.
func TestScaledRatioNamed(t *testing.T) {
	for _, tc := range []struct {
		calibrated bool
		want       string
	}{
		{false, "x 1.5: the literature-constant analytic model's\n   time of this setting on A100-40GB over that on the H100-SXM"},
		{true, "x 1.5: the calibrated analytic model's\n   time of this setting on A100-40GB over that on the H100-SXM"},
	} {
		pr := samplePrediction()
		pr.Best.Scaled = &Scaled{GPU: "H100-SXM", TimeMs: 0.3333, Ratio: 1.5, Calibrated: tc.calibrated}
		var b bytes.Buffer
		if err := pr.WriteText(&b, false); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "0.3333 ms per step predicted on the H100-SXM, whose measurements trained the model, "+tc.want) {
			t.Errorf("calibrated %v: got\n%s\nwant it to hold %q", tc.calibrated, b.String(), tc.want)
		}
	}
}

// TestScreenedOnModelsGPU: a GPU answered by transfer had its OCs screened on the GPU whose
// measurements trained the model, the classes most probable there, and the settings found then
// scaled: the line says so, not that they were screened on the GPU asked about.
func TestScreenedOnModelsGPU(t *testing.T) {
	pr := samplePrediction()
	pr.Best.Scaled = &Scaled{GPU: "H100-SXM", TimeMs: 0.3333, Ratio: 1.5}
	var b bytes.Buffer
	if err := pr.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := "\n2 OCs of the classes most probable on the H100-SXM screened by its model, the fastest of each class searched in depth there, and the best settings found scaled to A100-40GB (rt-2d, "
	if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "screened on A100-40GB") {
		t.Errorf("got\n%s\nwant it to hold %q", b.String(), want)
	}
}

// TestWritePredictionRows: one row per stencil with its interval, the asked GPU's time over the
// fastest's, a note per provenance naming its models once (and its stencils where provenances
// differ), and each stencil's warnings.
func TestWritePredictionRows(t *testing.T) {
	p := samplePrediction()
	want := `stencil                  GPU        best OC               p    ms/step    80% interval  fastest GPU   speedup  setting
j2d5pt                   A100-40GB  ST                0.750        0.5          0.25-1  H100-SXM        2.00x  bx=32,by=8
j2d5pt                   A100-40GB  ST                0.750        0.5          0.25-1  H100-SXM        2.00x  bx=32,by=8
(speedup: the GPU asked about's time over the fastest GPU's, both from the table of every GPU that smart predict FILE prints)
(times on A100-40GB: simulated: trained on the analytic model's times; rt-2d)
warning: j2d5pt: a warning
warning: j2d5pt: a warning
`
	var b bytes.Buffer
	if err := WritePredictionRows(&b, []*Prediction{p, p}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}

	// A name longer than the column widens it for every row; a stencil answered otherwise is
	// named in its note.
	long := *p
	long.Stencil.Name = "rand3d-o3-s1-0142-f32-large"
	best := *p.Best
	best.Source = Provenance{Basis: BasisAnalytic, Text: "the calibrated analytic model alone"}
	best.Interval = nil
	long.Best, long.Warnings = &best, nil
	want = `stencil                     GPU        best OC               p    ms/step    80% interval  fastest GPU   speedup  setting
j2d5pt                      A100-40GB  ST                0.750        0.5          0.25-1  H100-SXM        2.00x  bx=32,by=8
rand3d-o3-s1-0142-f32-large A100-40GB  ST                0.750        0.5               -  H100-SXM        2.00x  bx=32,by=8
(speedup: the GPU asked about's time over the fastest GPU's, both from the table of every GPU that smart predict FILE prints)
(times on A100-40GB of j2d5pt: simulated: trained on the analytic model's times; rt-2d)
(times on A100-40GB of rand3d-o3-s1-0142-f32-large: the calibrated analytic model alone)
warning: j2d5pt: a warning
`
	b.Reset()
	if err := WritePredictionRows(&b, []*Prediction{p, &long}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestRecommendationWriteText: 1000 steps of 2 ms on a $3.60 GPU take 2 s and cost $0.002;
// 4 ms on a $0.90 GPU, 4 s and $0.001: the slow GPU is the most cost-efficient, and the user's.
func TestRecommendationWriteText(t *testing.T) {
	r, err := rankAll([]GPUTime{timed("fast", 2, 3.6), timed("slow-cheap", 4, 0.9), {GPU: "W6600", Reason: "AMD GPU"}}, Workload{Steps: 1000}, "slow-cheap")
	if err != nil {
		t.Fatal(err)
	}
	r.Stencil = StencilInfo{Name: "j2d5pt", Dims: 2, Order: 1, Points: 5, Grid: []int{64, 64}, Dtype: smart.Float64}
	r.Have.Advice = "advice"
	for _, g := range r.GPUs[:2] {
		g.Best.Source = Provenance{Basis: BasisSimulated, Model: "rt-2d", Text: "simulated"}
	}
	want := `j2d5pt: 2-D, order 1, 5 points, grid 64x64, float64; priced for 1000 steps

  rank GPU             ms/step        interval       time      $/h       cost $rank  best OC          source
  1    fast                  2               -     2.00 s    3.600     $0.002     2  ST               simulated <- fastest
  2    slow-cheap            4               -     4.00 s    0.900     $0.001     1  ST               simulated <- most cost-efficient (yours)
  -    W6600        not predicted: AMD GPU

advice.
Times: rt-2d, simulated.
`
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Rows resting on different models each name theirs.
	var many bytes.Buffer
	r.GPUs[1].Best.Source = Provenance{Basis: BasisTransfer, Model: "rt-2d", Text: "moved from fast"}
	if err := r.WriteText(&many); err != nil {
		t.Fatal(err)
	}
	if tail := "Times: fast: rt-2d, simulated.\n       slow-cheap: rt-2d, moved from fast.\n"; !strings.HasSuffix(many.String(), tail) {
		t.Errorf("got\n%s\nwant it to end\n%s", many.String(), tail)
	}
	// A time the calibrated model's interval bounds is said to be one, where a floor is not.
	r.GPUs[0].Best.Bounded = &Bounded{By: BoundCalibrated, LearnedMs: 0.5}
	r.GPUs[1].Best.Bounded = &Bounded{By: BoundFloor, LearnedMs: 1}
	var bounded bytes.Buffer
	if err := r.WriteText(&bounded); err != nil {
		t.Fatal(err)
	}
	if want := "\nBounded: the times of fast are the nearer edge of the calibrated analytic model's interval"; !strings.Contains(bounded.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", bounded.String(), want)
	}
	r.GPUs[0].Best.Bounded, r.GPUs[1].Best.Bounded = nil, nil
	want = `stencil                  fastest         ms/step        interval most cost-efficient          cost  advice
j2d5pt                   fast                  2               - slow-cheap                 $0.001  advice
`
	b.Reset()
	if err := WriteRecommendationRows(&b, []*Recommendation{r}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Intervals that overlap the fastest's, and the warnings, are said on the row's stencil.
	r.GPUs[0].Best.Interval = &smart.Interval{Level: 0.8, LoMs: 1.5, HiMs: 3}
	r.Overlapping, r.Warnings = []string{"slow-cheap", "other"}, []string{"a warning"}
	want = `stencil                  fastest         ms/step    80% interval most cost-efficient          cost  advice
j2d5pt                   fast                  2           1.5-3 slow-cheap                 $0.001  the fastest's interval overlaps the slow-cheap's, the other's: measure before you rent; advice
warning: j2d5pt: a warning
`
	b.Reset()
	if err := WriteRecommendationRows(&b, []*Recommendation{r}); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestModelSummary: data sets measured on one GPU are summed per GPU; others are listed each.
func TestModelSummary(t *testing.T) {
	m := ModelInfo{Data: []models.DataRef{
		{Path: "sim", Rows: 100, GPUs: []string{"A100-40GB", "T4"}, Sources: map[string]int{"simulated": 100}},
		{Path: "h100/a", Rows: 30, GPUs: []string{"H100-SXM"}, Sources: map[string]int{"measured": 30}},
		{Path: "h200/a", Rows: 7, GPUs: []string{"H200"}, Sources: map[string]int{"measured": 7}},
		{Path: "h100/b", Rows: 12, GPUs: []string{"H100-SXM"}, Sources: map[string]int{"measured": 12}},
	}, CV: &models.Metrics{Folds: 6, MAPE: 49.7}}
	want := "trained on 100 rows (100 simulated measurements, 2 GPUs): sim; 42 rows measured on the H100-SXM (2 data sets); 7 rows measured on the H200 (1 data set); 6-fold MAPE 49.7%"
	if got := m.Summary(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// A classifier's rows are stencils labelled from their measurements; a data set with none of
	// the model's stencils adds nothing.
	m = ModelInfo{Data: []models.DataRef{
		{Path: "sim", Rows: 20, GPUs: []string{"A100-40GB", "T4"}, Sources: map[string]int{"simulated": 600}},
		{Path: "h100/a", Rows: 2, GPUs: []string{"H100-SXM"}, Sources: map[string]int{"measured": 240}},
		{Path: "h100/2d-only", Rows: 0, GPUs: []string{"H100-SXM"}, Sources: map[string]int{}},
		{Path: "h100/b", Rows: 1, GPUs: []string{"H100-SXM"}, Sources: map[string]int{"measured": 120}},
	}, CV: &models.Metrics{Folds: 5, Accuracy: 0.788}}
	want = "trained on 20 rows (600 simulated measurements, 2 GPUs): sim; 3 rows from 360 measurements on the H100-SXM (2 data sets); 5-fold accuracy 78.8%"
	if got := m.Summary(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestCheckGiven: a model given is refused only where no stencil has its dimensions.
func TestCheckGiven(t *testing.T) {
	ms := &Models{given: []*Model{{Model: &models.Model{Header: models.Header{Inputs: &models.Inputs{Dims: 3}}}, Name: "rt3.model"}}}
	in2 := Input{Stencil: generatortest.Named(t, "star", 2, 1, [3]int{})}
	in3 := Input{Stencil: generatortest.Named(t, "star", 3, 1, [3]int{})}
	if err := ms.CheckGiven([]Input{in2, in3}); err != nil {
		t.Errorf("a 3-D stencil among the inputs: %v", err)
	}
	err := ms.CheckGiven([]Input{in2})
	want := "rt3.model was trained on 3-D stencils; none of the stencils given is 3-D"
	if ue, ok := err.(*UnusedModelError); !ok || ue.Error() != want {
		t.Errorf("only 2-D stencils: got %v, want %q", err, want)
	}
}

// TestWriteTextOneStep: a stencil of one point and one step is not written "1 points" or
// "1 steps".
func TestWriteTextOneStep(t *testing.T) {
	pr := samplePrediction()
	pr.Stencil.Points, pr.Stencil.Steps = 1, 1
	var b bytes.Buffer
	if err := pr.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"order 1, 1 point, grid 64x32, float64, 1 step (id abc)", "s for the stencil's 1 step\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
