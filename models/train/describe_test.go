package train

import (
	"context"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/dataset"
	"smart/models"
)

func TestDescribe(t *testing.T) {
	st := smart.Combination(0).With(smart.ST)
	tests := []struct {
		name string
		set  *Set
		want string
	}{
		{"select", &Set{
			Data:    &models.Data{Task: models.Select, Features: []string{"a", "b"}, X: make([][]float64, 3), Groups: []string{"s1", "s2", "s1"}},
			Samples: []Sample{{GPU: "V100"}, {GPU: "A100-40GB"}, {GPU: "V100"}},
			Classes: []models.Class{{OC: 0}, {OC: st}},
			Refs:    []models.DataRef{{Path: "runs/a", Rows: 3, Sources: map[string]int{"simulated": 40}}},
		}, "data: 3 rows of 2 columns, 2 stencils, GPUs A100-40GB, V100\n  runs/a: 3 rows from 40 simulated measurements\n  2 classes: BASE ST"},
		{"kernel", &Set{
			Data:    &models.Data{Task: models.Runtime, Features: []string{"x"}, X: make([][]float64, 2), Groups: []string{"c1", "c2"}},
			Samples: []Sample{{GPU: "W6600"}, {GPU: "W6600"}},
			Inputs:  models.Inputs{Kernel: "conv", Analytic: "roofline-conv"},
			Refs:    []models.DataRef{{Path: "runs/k", Rows: 2, Sources: map[string]int{}}},
		}, "data: 2 rows of 1 columns, 2 configurations of kernel conv, GPUs W6600\n  runs/k: 2 rows from no measurements\n  the analytic model's time (roofline-conv) is a column"},
	}
	for _, tt := range tests {
		if got := tt.set.Describe(); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

// TestRefConstants: the constants a simulated data set records travel into the model's record of
// its data (DataRef), each kind once however many GPUs share it, and into what smart train and
// smart eval print of it; a data set that records none adds nothing.
func TestRefConstants(t *testing.T) {
	c := dataset.Constants{Origin: dataset.ConstantsCalibration, File: "cal.json", SHA256: "0123456789ab", FittedOn: "181 stencils, H100-SXM"}
	for _, tc := range []struct {
		name string
		c    dataset.Constants
		want []string
	}{
		{"calibrated", c, []string{"the constants of calibration cal.json (sha256 0123456789ab, fitted on 181 stencils, H100-SXM)"}},
		{"not recorded", dataset.Constants{}, nil},
	} {
		dir := synthDataSetWith(t, 4, []string{"A100-40GB", "V100"}, 1, smart.Simulated, tc.c)
		set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
		if err != nil {
			t.Fatal(err)
		}
		if got := set.Refs[0].Constants; !slices.Equal(got, tc.want) {
			t.Errorf("%s: constants %q; want %q", tc.name, got, tc.want)
		}
		d, h := set.Describe(), (models.Header{Data: set.Refs}).TrainingData()
		for _, w := range tc.want {
			if !strings.Contains(d, "simulated with "+w) || !strings.Contains(h, "simulated with "+w) {
				t.Errorf("%s: describe %q / training data %q; want both to say simulated with %q", tc.name, d, h, w)
			}
		}
		if tc.want == nil && (strings.Contains(d, "simulated with") || strings.Contains(h, "simulated with")) {
			t.Errorf("%s: describe %q / training data %q name constants the data set does not record", tc.name, d, h)
		}
	}
}
