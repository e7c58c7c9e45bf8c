package app

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart/predict"
)

func TestPredictAndRecommendCheck(t *testing.T) {
	notReport := filepath.Join(t.TempDir(), "notes.html")
	if err := os.WriteFile(notReport, []byte("<p>mine</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := func(f func(*RecommendSettings)) RecommendSettings {
		r := RecommendSettings{GPUs: []string{"t4"}, Workload: predict.Workload{Steps: 100}}
		f(&r)
		return r
	}
	for _, tc := range []struct {
		name  string
		r     RecommendSettings
		field string
	}{
		{"steps", base(func(*RecommendSettings) {}), ""},
		{"the stencil's steps", base(func(r *RecommendSettings) { r.Workload.Steps = 0 }), ""},
		{"hours", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: 2.5} }), ""},
		{"a century", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: MaxHours} }), ""},
		{"all GPUs", base(func(r *RecommendSettings) { r.GPUs, r.Predict.AllGPUs = nil, true }), ""},
		{"negative steps", base(func(r *RecommendSettings) { r.Workload.Steps = -1 }), "Steps"},
		{"negative hours", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: -1} }), "Hours"},
		{"NaN hours", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: math.NaN()} }), "Hours"},
		{"infinite hours", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: math.Inf(1)} }), "Hours"},
		{"over a century", base(func(r *RecommendSettings) { r.Workload = predict.Workload{Hours: MaxHours + 1} }), "Hours"},
		{"steps and hours", base(func(r *RecommendSettings) { r.Workload.Hours = 1 }), "Hours"},
		{"a century of steps", base(func(r *RecommendSettings) { r.Workload.Steps = MaxSteps }), ""},
		{"more steps", base(func(r *RecommendSettings) { r.Workload.Steps = MaxSteps + 1 }), "Steps"},
		{"GPUs and all", base(func(r *RecommendSettings) { r.Predict.AllGPUs = true }), "AllGPUs"},
		{"candidates", base(func(r *RecommendSettings) { r.Predict.Candidates = 2 }), ""},
		{"negative candidates", base(func(r *RecommendSettings) { r.Predict.Candidates = -1 }), "Candidates"},
		{"most samples", base(func(r *RecommendSettings) { r.Predict.Samples = MaxSamples }), ""},
		{"negative samples", base(func(r *RecommendSettings) { r.Predict.Samples = -1 }), "Samples"},
		{"too many samples", base(func(r *RecommendSettings) { r.Predict.Samples = MaxSamples + 1 }), "Samples"},
		{"report over another file", base(func(r *RecommendSettings) { r.HTML = notReport }), "HTML"},
		{"report over another file, told", base(func(r *RecommendSettings) { r.HTML, r.Replace = notReport, true }), ""},
		{"new report", base(func(r *RecommendSettings) { r.HTML = notReport + ".new" }), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.r.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
	if _, err := (PredictSettings{Samples: -1}).Predictor(); refusedField(t, err) != "Samples" {
		t.Errorf("Predictor opened settings that Check refuses: %v", err)
	}
}

func TestSplitNames(t *testing.T) {
	for list, want := range map[string][]string{
		"":               nil,
		" , ,":           nil,
		"t4":             {"t4"},
		" t4 , ,a100 ":   {"t4", "a100"},
		"a100,a100,h100": {"a100", "a100", "h100"},
	} {
		if got := SplitNames(list); !slices.Equal(got, want) {
			t.Errorf("SplitNames(%q) = %q, want %q", list, got, want)
		}
	}
}

// TestRecommendOpen: the GPUs named are looked up before any stencil is read.
func TestRecommendOpen(t *testing.T) {
	for _, tc := range []struct {
		name  string
		r     RecommendSettings
		field string
	}{
		{"GPUs and yours", RecommendSettings{GPUs: []string{"t4", "a100"}, Have: "v100"}, ""},
		{"a GPU that is none", RecommendSettings{GPUs: []string{"t4", "nosuch"}}, "GPUs"},
		{"AMD GPUs only", RecommendSettings{GPUs: []string{"w6600", "mi250x"}}, "GPUs"},
		{"AMD among others", RecommendSettings{GPUs: []string{"w6600", "t4"}}, ""},
		{"yours is none", RecommendSettings{Have: "nosuch"}, "Have"},
		{"yours is AMD", RecommendSettings{Have: "w6600"}, "Have"},
		{"a workload refused", RecommendSettings{Workload: predict.Workload{Steps: -1}}, "Steps"},
		{"a model that none of the stencils uses", RecommendSettings{Predict: PredictSettings{Models: []string{"../data/models/runtime-3d.smartmodel.gz"}}}, "Models"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ins, err := tc.r.Open([]string{"j2d5pt"}, nil)
			if got := refusedField(t, err); got != tc.field {
				t.Fatalf("Open refused %q (%v), want %q", got, err, tc.field)
			}
			if err == nil && (p == nil || len(ins) != 1) {
				t.Errorf("Open gave predictor %p and %d inputs", p, len(ins))
			}
		})
	}
}

// TestInputsFor: a model given that none of the stencils can use is refused.
func TestInputsFor(t *testing.T) {
	s := PredictSettings{Models: []string{"../data/models/runtime-2d.smartmodel.gz"}}
	p, err := s.Predictor()
	if err != nil {
		t.Fatal(err)
	}
	if ins, err := InputsFor(p, []string{"j2d5pt", "j3d7pt"}, nil); err != nil || len(ins) != 2 {
		t.Errorf("a 2-D model with a 2-D stencil: %d inputs, %v", len(ins), err)
	}
	if _, err := InputsFor(p, []string{"j3d7pt"}, nil); refusedField(t, err) != "Models" {
		t.Errorf("a 2-D model with 3-D stencils only: %v, want a refusal of Models", err)
	}
	if _, err := InputsFor(p, []string{"nosuch.json"}, nil); err == nil {
		t.Error("a missing stencil file was read")
	}
	s.GPU = "a100"
	if _, gpu, ins, err := s.Open([]string{"j2d9pt"}, nil); err != nil || gpu != "a100" || len(ins) != 1 {
		t.Errorf("Open: GPU %q, %d inputs, %v", gpu, len(ins), err)
	}
	s.GPU = "nosuch"
	if _, _, _, err := s.Open([]string{"j2d9pt"}, nil); refusedField(t, err) != "GPU" {
		t.Errorf("Open of an unknown GPU: %v", err)
	}
}
