package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"smart/models"
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

func TestEvalCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		eval  Eval
		field string
	}{
		{"as it is", Eval{Data: []string{"d"}}, ""},
		{"folds", Eval{Data: []string{"d"}, Folds: 3}, ""},
		{"every GPU held out", Eval{Data: []string{"d"}, Holdout: "all"}, ""},
		{"no data", Eval{}, "Data"},
		{"one fold", Eval{Data: []string{"d"}, Folds: 1}, "Folds"},
		{"negative folds", Eval{Data: []string{"d"}, Folds: -1}, "Folds"},
		{"folds and a GPU held out", Eval{Data: []string{"d"}, Folds: 3, Holdout: "a100"}, "Holdout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.eval.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}

// TestTrainLoadFolds: more cross-validation folds than stencils are refused once the data is
// read, before any training.
func TestTrainLoadFolds(t *testing.T) {
	one, two := "../data/measured/h100-sxm/random/j3d19pt", "../data/measured/h100-sxm/random/j3d25pt"
	for _, tc := range []struct {
		data  []string
		cv    int
		field string
	}{
		{[]string{one}, 0, ""},
		{[]string{one}, 2, "CV"},
		{[]string{one, two}, 2, ""},
		{[]string{one, two}, 3, "CV"},
	} {
		_, err := Train{Data: tc.data, Task: models.Runtime, Kind: "gbdt", CV: tc.cv}.Load(context.Background())
		if got := refusedField(t, err); got != tc.field {
			t.Errorf("%d data sets, %d folds: refused %q (%v), want %q", len(tc.data), tc.cv, got, err, tc.field)
		}
	}
}

// TestLoadCancelled: a cancelled context stops the reading of a training's or an evaluation's
// data sets with an error wrapping context.Canceled.
func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := []string{"../data/measured/h100-sxm/random/j3d19pt"}
	if _, err := (Train{Data: data, Task: models.Runtime, Kind: "gbdt"}).Load(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Train.Load: %v, want an error wrapping context.Canceled", err)
	}
	if _, err := (Eval{Model: "../data/models/runtime-3d.smartmodel.gz", Data: data}).Run(ctx, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("Eval.Run: %v, want an error wrapping context.Canceled", err)
	}
}
