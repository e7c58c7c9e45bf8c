package train

import (
	"testing"

	"smart"
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
