package main

import (
	"slices"
	"testing"

	"smart/features"
	"smart/models"
	"smart/models/train"
)

// TestDropUsage: the set without usage keeps every other column of every row, in order.
func TestDropUsage(t *testing.T) {
	names := slices.Concat([]string{"a", "b"}, features.UsageNames(), []string{"c"})
	set := &train.Set{Data: &models.Data{Features: names, X: [][]float64{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}}, Inputs: models.Inputs{Usage: true}}
	got := dropUsage(set)
	if !slices.Equal(got.Data.Features, []string{"a", "b", "c"}) || !slices.Equal(got.Data.X[1], []float64{7, 8, 12}) || got.Inputs.Usage {
		t.Errorf("dropped: %v %v, usage %v", got.Data.Features, got.Data.X, got.Inputs.Usage)
	}
	if len(set.Data.X[0]) != 6 {
		t.Error("the original set lost columns")
	}
}

// TestWithUsage: the usage columns of every row take the given values, every other column and
// the original set stay as they were.
func TestWithUsage(t *testing.T) {
	names := slices.Concat([]string{"a"}, features.UsageNames(), []string{"c"})
	set := &train.Set{Data: &models.Data{Features: names, X: [][]float64{{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}}}}
	got := withUsage(set, [][3]float64{{-1, -2, -3}, {-4, -5, -6}})
	if !slices.Equal(got.Data.X[0], []float64{1, -1, -2, -3, 5}) || !slices.Equal(got.Data.X[1], []float64{6, -4, -5, -6, 10}) {
		t.Errorf("replaced: %v", got.Data.X)
	}
	if !slices.Equal(set.Data.X[1], []float64{6, 7, 8, 9, 10}) {
		t.Error("the original set changed")
	}
}
