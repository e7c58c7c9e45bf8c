package main

import (
	"context"
	"math"
	"testing"
)

// TestCalibrationLevels: on the committed H100 classic data set (two stencils, each left out of
// the fit in turn) and one H200 stencil, the fit brings the held-out median ratio of modelled to
// measured nearer 1 than the literature's constants, which are 2-4x optimistic.
func TestCalibrationLevels(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the model three times")
	}
	rep, err := run(context.Background(), "../../data/measured/h100-sxm/classic", "../../data/measured/h200/random/j3d19pt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.LeaveOneOut) != 2 || len(rep.Test) != 1 || len(rep.Residuals) == 0 {
		t.Fatalf("%d stencils left out, %d tested, %d residual groups; want 2, 1 and some", len(rep.LeaveOneOut), len(rep.Test), len(rep.Residuals))
	}
	for _, r := range append(rep.LeaveOneOut, rep.Test...) {
		before, after := math.Abs(math.Log(r.Before.MedianRatio)), math.Abs(math.Log(r.After.MedianRatio))
		if r.Before.N < 100 || after >= before {
			t.Errorf("%s %s: %d variants, median ratio %.2f -> %.2f; want it nearer 1", r.GPU, r.Stencil, r.Before.N, r.Before.MedianRatio, r.After.MedianRatio)
		}
	}
}
