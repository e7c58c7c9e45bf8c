package main

import (
	"math"
	"testing"
)

// The pick is the row ranked fastest, scored by its measured time over the fastest measured.
func TestScore(t *testing.T) {
	nan := math.NaN()
	s := &score{}
	// Predicted fastest: the second row (0.5 ms), measured 3 against a best of 2.
	s.add([]float64{2, 3, 4}, []float64{math.Log(1), math.Log(0.5), math.Log(4)}, []float64{nan, nan, nan})
	// Predicted fastest: the best row itself.
	s.add([]float64{1, 5}, []float64{math.Log(1), math.Log(6)}, []float64{nan, nan})
	if s.ratios[0] != 1.5 || s.ratios[1] != 1 {
		t.Fatalf("ratios %v, want [1.5 1]", s.ratios)
	}
	// sqrt(1.5) = 1.225; one stencil within 1.10x and 1.25x of two; MAPE (0.5 + 2.5/3 + 0 + 0 +
	// 0.2) / 5 = 30.7%.
	if got, want := s.String(), "1.225x\t1\t1\t2\t30.7%"; got != want {
		t.Errorf("score %q, want %q", got, want)
	}
	// Half the analytic model's time in the ranking: the first row (ln 1/2 + ln 1/2 against
	// ln 0.5/2 + ln 8/2) goes first, the best measured; MAPE is the model's alone.
	w := &score{weight: 0.5}
	w.add([]float64{2, 3, 4}, []float64{math.Log(1), math.Log(0.5), math.Log(4)}, []float64{math.Log(1), math.Log(8), nan})
	if w.ratios[0] != 1 || math.Abs(w.apes[1]-2.5/3) > 1e-12 {
		t.Errorf("weighted: ratio %v, APE %v; want 1, 0.833", w.ratios[0], w.apes[1])
	}
}
