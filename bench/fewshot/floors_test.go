package main

import (
	"math"
	"testing"

	"smart"
	"smart/transfer"
)

// TestFloors: a prediction off by one factor has a level floor of 0; one off by a factor per
// value of a parameter has a parameter floor of 0 and a level floor computed by hand.
func TestFloors(t *testing.T) {
	factor := map[int]float64{1: 2, 2: 0.5} // the target's time over the prediction, by "a"
	var p transfer.Prediction
	var level, params []smart.Measurement
	for i := 1; i <= 20; i++ {
		s := smart.Setting{"a": 1 + i%2, "b": i}
		v := transfer.Variant{Kernel: "k", Setting: s, TimeMs: float64(i)}
		p.Variants = append(p.Variants, v)
		level = append(level, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: 3 * float64(i)})
		params = append(params, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: factor[s["a"]] * float64(i)})
	}
	if f := floors(&p, level); math.Abs(f.Level) > 1e-9 || math.Abs(f.Params) > 1e-9 || math.Abs(f.Pairs) > 1e-9 {
		t.Errorf("a constant factor: floors %+v, want 0, 0 and 0", f)
	}
	// Half the rows at 2x, half at 0.5x: the weighted median of the ratios (weights 1/2 and 2)
	// is 0.5, which leaves the 2x rows 75% off: 37.5% over all.
	if f := floors(&p, params); math.Abs(f.Params) > 1e-6 || math.Abs(f.Pairs) > 1e-6 || math.Abs(f.Level-37.5) > 1e-9 {
		t.Errorf("a factor per value of a: floors %+v, want level 37.5 and parameters 0", f)
	}
}
