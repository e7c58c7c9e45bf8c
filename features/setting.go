package features

import (
	"fmt"
	"math"

	"smart"
	"smart/internal/bit"
)

// ocBits lists the optimizations in the order of their 0/1 entries.
func ocBits() [6]smart.Optimization {
	return [...]smart.Optimization{smart.ST, smart.BM, smart.CM, smart.RT, smart.PR, smart.TB}
}

// settingParams lists every stencil-space parameter a dims-D setting can have, in the order of
// their entries: the union of smart.ParamNames over all combinations.
func settingParams(dims int) []string { return appendSettingParams(nil, dims) }

// appendSettingParams appends settingParams(dims) to ps: Setting lists them into a buffer on the
// stack, once for every row a search scores.
func appendSettingParams(ps []string, dims int) []string {
	axes := func(x, y, z string) []string { return []string{x, y, z}[:dims] }
	ps = append(ps, axes(smart.ParamBlockX, smart.ParamBlockY, smart.ParamBlockZ)...)
	ps = append(ps, smart.ParamShared, smart.ParamConst, smart.ParamStreamD, smart.ParamStreamB)
	ps = append(ps, axes(smart.ParamUnrollX, smart.ParamUnrollY, smart.ParamUnrollZ)...)
	ps = append(ps, axes(smart.ParamBMX, smart.ParamBMY, smart.ParamBMZ)...)
	ps = append(ps, axes(smart.ParamCMX, smart.ParamCMY, smart.ParamCMZ)...)
	return append(ps, smart.ParamTT)
}

// encoding says how a parameter's value becomes a number.
func encoding(param string) (prefix string, enc func(int) (float64, error)) {
	switch param {
	case smart.ParamShared, smart.ParamConst:
		return "", func(v int) (float64, error) { return float64(bit.Of(v != 0)), nil }
	case smart.ParamStreamD:
		return "", func(v int) (float64, error) { return float64(v), nil }
	}
	return "log2_", func(v int) (float64, error) {
		if v < 1 {
			return 0, fmt.Errorf("is %d; it must be at least 1", v)
		}
		return math.Log2(float64(v)), nil
	}
}

// SettingNames names the entries of Setting's vector for dims-D stencils: oc_ST .. oc_TB, then
// every parameter of the dims-D space (log2_ prefixed where the value is encoded as its log2).
func SettingNames(dims int) []string {
	var names []string
	for _, o := range ocBits() {
		names = append(names, "oc_"+o.String())
	}
	for _, p := range settingParams(dims) {
		prefix, _ := encoding(p)
		names = append(names, prefix+p)
	}
	return names
}

// Setting encodes combination oc with setting s of a dims-D stencil as a vector with the same
// layout for every combination (SettingNames): six 0/1 entries for ST, BM, CM, RT, PR, TB; then
// for each parameter of the space, log2 of its value for the numeric ones (block sizes, sb,
// unroll and merging factors, tt), 0/1 for shared and const, and sd as is (1 to 3). A parameter the combination does not have is
// 0, which for the log2 entries is the value 1 it stands for (no merging, no unrolling, one time
// step) and for sd means no streaming axis. s must have exactly the parameters of
// smart.ParamNames(dims, oc).
func Setting(dims int, oc smart.Combination, s smart.Setting) ([]float64, error) {
	if dims != 2 && dims != 3 {
		return nil, fmt.Errorf("setting %s: dims is %d; use 2 or 3", s, dims)
	}
	if _, err := smart.DecodeTuning(dims, oc, s); err != nil {
		return nil, err
	}
	var buf [18]string
	params := appendSettingParams(buf[:0], dims)
	v := make([]float64, 0, len(ocBits())+len(params))
	for _, o := range ocBits() {
		v = append(v, float64(bit.Of(oc.Has(o))))
	}
	for _, p := range params {
		val, ok := s[p]
		if !ok {
			v = append(v, 0)
			continue
		}
		_, enc := encoding(p)
		x, err := enc(val)
		if err != nil {
			return nil, fmt.Errorf("setting %s for %s: %s %w", s, oc, p, err)
		}
		v = append(v, x)
	}
	return v, nil
}
