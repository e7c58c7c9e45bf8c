package app

import "testing"

func TestTrainCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		train Train
		field string
	}{
		{"valid", Train{Data: []string{"d"}, CV: 5, Dims: 3}, ""},
		{"no cross-validation, all dimensions", Train{Data: []string{"d"}}, ""},
		{"no data", Train{CV: 5}, "Data"},
		{"one fold", Train{Data: []string{"d"}, CV: 1}, "CV"},
		{"negative folds", Train{Data: []string{"d"}, CV: -2}, "CV"},
		{"1-D", Train{Data: []string{"d"}, Dims: 1}, "Dims"},
		{"4-D", Train{Data: []string{"d"}, Dims: 4}, "Dims"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.train.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}
