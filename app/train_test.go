package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTrainCheck(t *testing.T) {
	notModel := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notModel, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
		{"out not a model", Train{Data: []string{"d"}, Out: notModel}, "Out"},
		{"out replaced when told", Train{Data: []string{"d"}, Out: notModel, Replace: true}, ""},
		{"out new", Train{Data: []string{"d"}, Out: notModel + ".model"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.train.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}
