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
	// The target runs the settings with a = 2 a hundred times faster than predicted, so its
	// optimum (i = 11, 0.11) is not among the prediction's five fastest (i = 1..5, the best of
	// them 1): the top five reach 0.11 of it; corrected by a factor per value of a, 1.
	var shifted transfer.Prediction
	var fast []smart.Measurement
	est, truth := []float64{}, []float64{}
	for i := 1; i <= 20; i++ {
		s := smart.Setting{"a": 1, "b": i % 4}
		t := float64(i)
		if i > 10 {
			s["a"], t = 2, float64(i)/100
		}
		shifted.Variants = append(shifted.Variants, transfer.Variant{Kernel: "k", Setting: s, TimeMs: float64(i)})
		fast = append(fast, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: t})
		est, truth = append(est, float64(i)), append(truth, t)
	}
	if got := top5Share(est, truth); math.Abs(got-0.11) > 1e-12 {
		t.Errorf("top five of the prediction: %v, want 0.11", got)
	}
	if f := floors(&shifted, fast); math.Abs(f.Top5Params-1) > 1e-9 || math.Abs(f.Top5Pairs-1) > 1e-9 {
		t.Errorf("a factor per value of a: top-five floors %v and %v, want 1", f.Top5Params, f.Top5Pairs)
	}
}
