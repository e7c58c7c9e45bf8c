package roofline

import (
	"math"
	"math/bits"

	"smart"
)

// FeatureName names Feature's value in a feature schema.
const FeatureName = "roofline_ln_ms"

// Feature is the natural logarithm of the modelled milliseconds per step, the scale the learned
// runtime models predict on, for use as one of their input features.
func Feature(st *smart.Stencil, t smart.Tuning, g smart.GPU) (float64, error) {
	e, err := Model(st, t, g)
	if err != nil {
		return 0, err
	}
	return math.Log(e.TimeMs), nil
}

// DefaultSetting is the setting smart estimate uses when none is given: blocks of 32x8 threads
// (x1 in 3-D), the input tile in shared memory, coefficients in constant memory, no merging
// (factors 1), no unrolling, streaming along the outermost axis with a block size of 1 along it
// (so 32x1 in 2-D) and a streaming block of an eighth of its extent rounded down to a power of
// two, and two fused steps with temporal blocking: values the search space holds.
func DefaultSetting(st *smart.Stencil, oc smart.Combination) smart.Setting {
	s := smart.Setting{}
	for _, name := range smart.ParamNames(st.Dims, oc) {
		s[name] = 1
	}
	s[smart.ParamBlockX], s[smart.ParamBlockY] = 32, 8
	if oc.Has(smart.ST) {
		s[smart.ParamStreamD] = st.Dims
		if st.Dims == 2 { // in 3-D bz is 1 already: each block walks its planes of the streamed axis
			s[smart.ParamBlockY] = 1
		}
		s[smart.ParamStreamB] = 1 << max(0, bits.Len(uint(st.Grid[st.Dims-1]/8))-1)
	}
	if oc.Has(smart.TB) {
		s[smart.ParamTT] = 2
	}
	return s
}
