package app

import (
	"errors"
	"strings"
	"testing"
)

// TestPredictSettings checks that the zero settings keep the default predictor's choices, that
// each field reaches the predictor, and that a GPU that cannot be searched is a SettingError
// of GPU.
func TestPredictSettings(t *testing.T) {
	for _, c := range []struct {
		name       string
		s          PredictSettings
		classes    int
		samples    int
		transfer   bool
		allGPUs    bool
		searchGPU  string
		errField   string
		errSaysAMD bool
	}{
		{"zero", PredictSettings{GPU: "a100"}, 3, 192, true, false, "a100", "", false},
		{"set", PredictSettings{GPU: "h100", Candidates: 2, Samples: 16, NoTransfer: true, AllGPUs: true}, 2, 16, false, true, "h100", "", false},
		{"unknown GPU", PredictSettings{GPU: "nosuch"}, 3, 192, true, false, "", "GPU", false},
		{"AMD", PredictSettings{GPU: "mi250x"}, 3, 192, true, false, "", "GPU", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := c.s.Predictor()
			if err != nil {
				t.Fatal(err)
			}
			if p.Budget.Classes != c.classes || p.Budget.Deep.Samples != c.samples || p.Transfer != c.transfer || p.AllGPUs != c.allGPUs {
				t.Errorf("predictor Classes %d, Samples %d, Transfer %v, AllGPUs %v; want %d, %d, %v, %v",
					p.Budget.Classes, p.Budget.Deep.Samples, p.Transfer, p.AllGPUs, c.classes, c.samples, c.transfer, c.allGPUs)
			}
			if c.s.Candidates > 0 && p.Budget.MinProbability != 0 {
				t.Errorf("%d classes asked for, least probability %g; want 0", c.s.Candidates, p.Budget.MinProbability)
			}
			gpu, err := c.s.SearchGPU(p.Catalog)
			var se *SettingError
			switch {
			case c.errField == "" && (err != nil || gpu != c.searchGPU):
				t.Errorf("SearchGPU: %q, %v; want %q", gpu, err, c.searchGPU)
			case c.errField != "" && (!errors.As(err, &se) || se.Field != c.errField || !se.Wrong):
				t.Errorf("SearchGPU: error %v, want a SettingError of %s", err, c.errField)
			case c.errSaysAMD && !strings.Contains(err.Error(), "AMD"):
				t.Errorf("SearchGPU: error %q does not say AMD", err)
			}
		})
	}
}

// TestPredictInputs reads a directory, a sample name and stdin in the order given.
func TestPredictInputs(t *testing.T) {
	stdin := strings.NewReader(`{"format": "smart-stencil/1", "name": "mine", "dims": 2, "dtype": "float32", "grid": [64, 64], "steps": 1,
		"offsets": [[0, 0], [1, 0]], "coefficients": [0.5, 0.5]}`)
	in, err := PredictInputs([]string{"../data/stencils", "j3d7pt", "-"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 14 || in[0].File != "../data/stencils/j2d13pt.json" || in[12].File != "j3d7pt" || in[13].Stencil.Name != "mine" {
		t.Fatalf("%d inputs, first %q, then %q and %q", len(in), in[0].File, in[len(in)-2].File, in[len(in)-1].Stencil.Name)
	}
	if _, err := PredictInputs([]string{"nosuch.json"}, nil); err == nil || !strings.Contains(err.Error(), "nosuch.json") {
		t.Errorf("a missing file: error %v, want one naming it", err)
	}
}
