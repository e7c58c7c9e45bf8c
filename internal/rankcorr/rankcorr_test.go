package rankcorr

import (
	"math"
	"slices"
	"testing"
)

func TestRanks(t *testing.T) {
	tests := []struct {
		in, want []float64
	}{
		{[]float64{3, 1, 2}, []float64{3, 1, 2}},
		{[]float64{5, 5, 1, 9}, []float64{2.5, 2.5, 1, 4}},
		{[]float64{3, 1, 2, 1, 5}, []float64{4, 1.5, 3, 1.5, 5}},
		{[]float64{7, 7, 7}, []float64{2, 2, 2}},
		{nil, []float64{}},
	}
	for _, tt := range tests {
		if got := Ranks(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Ranks(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestSpearman against values from the textbook formula 1 - 6 sum d^2 / (n (n^2 - 1)), which
// holds without ties.
func TestSpearman(t *testing.T) {
	tests := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{10, 20, 30, 40, 50}, 1},
		{[]float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2, 1}, -1},
		// Ranks of y: 2 1 4 3 5, d^2 sums to 4: 1 - 24/120.
		{[]float64{1, 2, 3, 4, 5}, []float64{0.2, 0.1, 0.9, 0.5, 3}, 0.8},
		// Monotone transforms keep the ranks.
		{[]float64{0.3, 0.1, 0.2}, []float64{math.Exp(0.3), math.Exp(0.1), math.Exp(0.2)}, 1},
	}
	for _, tt := range tests {
		if got := Spearman(tt.x, tt.y); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Spearman(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}
