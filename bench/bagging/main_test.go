package main

import (
	"math"
	"testing"
)

// The pick is the row predicted fastest, scored by its measured time over the fastest measured.
func TestScore(t *testing.T) {
	s := &score{}
	// Predicted fastest: the second row (0.5 ms), measured 3 against a best of 2.
	s.add([]float64{2, 3, 4}, []float64{math.Log(1), math.Log(0.5), math.Log(4)})
	// Predicted fastest: the best row itself.
	s.add([]float64{1, 5}, []float64{math.Log(1), math.Log(6)})
	if s.ratios[0] != 1.5 || s.ratios[1] != 1 {
		t.Fatalf("ratios %v, want [1.5 1]", s.ratios)
	}
	// sqrt(1.5) = 1.225; one stencil within 1.10x and 1.25x of two; MAPE (0.5 + 2.5/3 + 0 + 0 +
	// 0.2) / 5 = 30.7%.
	if got, want := s.String(), "1.225x\t1\t1\t2\t30.7%"; got != want {
		t.Errorf("score %q, want %q", got, want)
	}
}
