package main

import (
	"context"
	"math"
	"testing"
)

// TestCalibrationLevels: on three committed H100 stencils (each left out of the fit in turn) and
// one H200 stencil, the fit brings the held-out median ratio of modelled to
// measured nearer 1 than the literature's constants, which are optimistic.
func TestCalibrationLevels(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the model four times")
	}
	rep, err := run(context.Background(), "../../data/measured/h100-sxm/classic,../../data/measured/h100-sxm/random/j3d125pt", "../../data/measured/h200/random/j3d19pt")
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Calibration
	if len(f.LeaveOneOut) != 3 || len(f.Test) != 1 || len(rep.Residuals) == 0 || len(rep.PerOC) == 0 {
		t.Fatalf("%d stencils left out, %d tested, %d residual groups, %d OCs; want 3, 1 and some", len(f.LeaveOneOut), len(f.Test), len(rep.Residuals), len(rep.PerOC))
	}
	for _, r := range append(f.LeaveOneOut, f.Test...) {
		before, after := math.Abs(math.Log(r.Before.MedianRatio)), math.Abs(math.Log(r.After.MedianRatio))
		if r.Before.N < 100 || after >= before {
			t.Errorf("%s %s: %d variants, median ratio %.2f -> %.2f; want it nearer 1", r.GPU, r.Stencil, r.Before.N, r.Before.MedianRatio, r.After.MedianRatio)
		}
	}
}
