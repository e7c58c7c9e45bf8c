package transfer

import (
	"smart"
	"smart/models/roofline"
)

// AnalyticRatio is a Settings.Ratio for stencils: the analytic model's time of the setting on
// the target over its time on the source, with the calibration's constants (nil: the
// literature's). The model carries what each GPU's bandwidth, caches, occupancy and limits make
// of that very kernel, which one ratio of bandwidth and FLOPS cannot. A setting of a stencil
// not in stencils (by ID), or one the model cannot place on either GPU, is left out.
func AnalyticRatio(stencils map[string]*smart.Stencil, cal *roofline.Calibration) func(Variant, smart.GPU, smart.GPU) (float64, bool) {
	return func(v Variant, from, to smart.GPU) (float64, bool) {
		st := stencils[v.StencilID]
		if st == nil {
			return 0, false
		}
		t, err := smart.DecodeTuning(st.Dims, v.OC, v.Setting)
		if err != nil {
			return 0, false
		}
		a, err := roofline.ModelWith(st, t, from, cal)
		if err != nil {
			return 0, false
		}
		b, err := roofline.ModelWith(st, t, to, cal)
		if err != nil || a.TimeMs <= 0 {
			return 0, false
		}
		return b.TimeMs / a.TimeMs, true
	}
}

// StencilFloor is the least time of a stencil's setting on a GPU (roofline.Floor: its grid read
// and written once per launch at the copy bandwidth, or its FMAs at the peak rate, whichever is
// longer), for Settings.Floor: 0 for a setting of a stencil not in stencils (by ID) or on a GPU
// the analytic model does not describe.
func StencilFloor(stencils map[string]*smart.Stencil, cal *roofline.Calibration) func(Variant, smart.GPU) float64 {
	return func(v Variant, to smart.GPU) float64 {
		st := stencils[v.StencilID]
		if st == nil {
			return 0
		}
		t, err := smart.DecodeTuning(st.Dims, v.OC, v.Setting)
		if err != nil {
			return 0
		}
		f, err := roofline.Floor(st, t.TT, to, cal)
		if err != nil {
			return 0
		}
		return f
	}
}
