package cuda

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"

	"smart"
	"smart/space"
)

// ErrNoSetting is returned by Sample when an OC has no valid setting on the verification grid
// (temporal blocking of a high-order stencil may not fit it).
var ErrNoSetting = errors.New("no valid setting on the verification grid")

// SmallCopy returns the copy of st that verification runs: the same points and element type on
// a small grid, (37+4r)x(33+4r) in 2-D (41x37 for order 1) and 21x19x17 in 3-D, grown by 4 per
// order above 3. The extents are odd, so the interior (less r per side), which the tiles cover,
// ends in a partial tile along every axis for any power-of-two tile size above 1; and they leave
// room for temporal blocking of two steps (a halo of 2r per side) around a tile. Its steps allow
// every fused step count of the setting space (space.MaxTT).
func SmallCopy(st *smart.Stencil) *smart.Stencil {
	c := *st
	c.Points = append([]smart.Point(nil), st.Points...)
	r := st.Order()
	if st.Dims == 2 {
		c.Grid = [3]int{37 + 4*r, 33 + 4*r, 1}
	} else {
		grow := 4 * max(0, r-3)
		c.Grid = [3]int{21 + grow, 19 + grow, 17 + grow}
	}
	c.Steps = space.MaxTT + 1
	return &c
}

// VerifySteps is how many time steps verification runs a tuning for: 2 (so the buffers swap),
// or with temporal blocking tt full steps and tt-1 more (at least 1), so a launch fusing fewer
// steps than tt is exercised too.
func VerifySteps(t smart.Tuning) int {
	if t.TT > 1 {
		return t.TT + max(1, t.TT-1)
	}
	return 2
}

// Sample draws n distinct settings of oc uniformly at random from the setting space (space) of
// st's verification copy on gpu, all of them where it holds n or fewer, and returns the
// variants to verify, each on SmallCopy(st) with VerifySteps steps. An OC with no valid setting
// there gives ErrNoSetting.
func Sample(st *smart.Stencil, oc smart.Combination, n int, gpu smart.GPU, rng *rand.Rand) ([]Variant, error) {
	small := SmallCopy(st)
	sp, err := space.ForStencil(small, oc, gpu)
	if err != nil {
		return nil, fmt.Errorf("settings of %s for verification: %w", oc, err)
	}
	count := sp.Count()
	if count.Sign() == 0 {
		return nil, fmt.Errorf("%s on grid %v: %w", oc, small.Grid[:st.Dims], ErrNoSetting)
	}
	var sets []smart.Setting
	if count.Cmp(big.NewInt(int64(n))) <= 0 {
		sets = slices.Collect(sp.All())
	} else {
		// Redrawing repeats keeps the draws of a seed that gave no repeat as they were.
		seen := map[string]bool{}
		for len(sets) < n {
			set, err := sp.Random(rng)
			if err != nil {
				return nil, fmt.Errorf("settings of %s for verification: %w", oc, err)
			}
			if k := set.String(); !seen[k] {
				seen[k] = true
				sets = append(sets, set)
			}
		}
	}
	var out []Variant
	for _, set := range sets {
		t, err := smart.DecodeTuning(st.Dims, oc, set)
		if err != nil {
			return nil, fmt.Errorf("settings of %s for verification: %w", oc, err)
		}
		run := *small
		run.Steps = VerifySteps(t)
		out = append(out, Variant{Stencil: &run, OC: oc, Setting: set})
	}
	return out, nil
}
