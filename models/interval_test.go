package models

import (
	"math"
	"testing"
)

func TestNewInterval(t *testing.T) {
	// Each stencil weighs 1: the rows of the first 1/4 each, the one row of the second 1.
	groups := [][]float64{{4, 1, 3, 2}, {10}, {}}
	for _, c := range []struct {
		level, lo, hi float64
	}{
		{0.8, 1, 10},  // 10% of 2 = 0.2: reached at 1 (0.25); 90% = 1.8: only at 10 (2)
		{0.5, 2, 10},  // 25% = 0.5: at 2; 75% = 1.5: at 10
		{0.99, 1, 10}, //
		{0.01, 4, 10}, // 49.5% = 0.99: at 4 (1.0); 50.5% = 1.01: at 10
	} {
		iv := NewInterval(groups, c.level, "x")
		if iv.LogLo != c.lo || iv.LogHi != c.hi || iv.Stencils != 2 || iv.Rows != 5 || iv.Level != c.level || iv.From != "x" {
			t.Errorf("level %v: %+v; want %v to %v over 2 stencils, 5 rows", c.level, iv, c.lo, c.hi)
		}
	}
	iv := Interval{Level: 0.8, LogLo: math.Log(0.5), LogHi: math.Log(2)}
	if got := Coverage(iv, []float64{-1, -0.5, 0, 0.69, 0.7, 5}); got != 3.0/6 {
		t.Errorf("coverage %v; want 3 of 6 inside [ln 0.5, ln 2]", got)
	}
	a := iv.Around(3)
	if math.Abs(a.LoMs-1.5) > 1e-12 || math.Abs(a.HiMs-6) > 1e-12 || a.Level != 0.8 {
		t.Errorf("around 3 ms: %+v; want 1.5 to 6 ms", a)
	}
}
