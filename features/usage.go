package features

import (
	"math"

	"smart"
)

// UsageNames names the entries of Usage's vector.
func UsageNames() []string { return []string{"ln_regs", "ln_fused_regs", "ln_local_regs"} }

// Usage is what a variant of st is estimated to ask of each thread (smart.Tuning.Usage), as
// ln(1+x): its registers, the registers its fused partial sums add under retiming with temporal
// blocking, and the values it keeps in local memory. The compiler spills what does not fit, and
// a spilling variant runs many times slower than its setting's other columns suggest: the
// largest misses of the measured stencils are such variants.
func Usage(st *smart.Stencil, oc smart.Combination, s smart.Setting) ([]float64, error) {
	t, err := smart.DecodeTuning(st.Dims, oc, s)
	if err != nil {
		return nil, err
	}
	u := t.Usage(st)
	return []float64{math.Log1p(float64(u.RegsPerThread)), math.Log1p(float64(u.FusedRegs)), math.Log1p(float64(u.LocalRegs))}, nil
}
