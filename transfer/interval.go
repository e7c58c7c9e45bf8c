package transfer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"smart/calibrate"
)

// minShotsForInterval is the number of left-out shots an interval is measured on; with fewer
// the sources' errors on one another measure it.
const minShotsForInterval = 4

// maxHeldRows bounds the rows of a held-out source the interval reads: enough for its
// quantiles, and a 10,000-setting cache stays fast.
const maxHeldRows = 2000

// interval measures the prediction's errors: on the shots, each predicted without it, where
// there are enough; else on the sources, each predicted from the others as the target is (after
// the level, where shots set it). Nil where neither can be had.
func (st *state) interval(c correction) *calibrate.Interval {
	if len(c.loo) >= minShotsForInterval {
		iv := calibrate.NewInterval([][]float64{c.loo}, st.s.Level,
			fmt.Sprintf("%d shots on %s, each predicted without it", len(c.loo), st.targetName()))
		return &iv
	}
	if len(st.used) < 2 {
		return nil
	}
	var groups [][]float64
	for h := range st.used {
		groups = append(groups, st.heldOut(h, c.n > 0))
	}
	from := fmt.Sprintf("%d source GPUs, each predicted from the others", len(st.used))
	if c.n > 0 {
		from += " after its level"
	}
	iv := calibrate.NewInterval(groups, st.s.Level, from)
	if iv.Rows == 0 {
		return nil
	}
	return &iv
}

func (st *state) targetName() string {
	return cmp.Or(st.target.GPU.Name, st.target.Name, "the target")
}

// heldOut is ln(measured/predicted) of source h's settings predicted from the other sources;
// levelKnown centres them, as a level from shots would.
func (st *state) heldOut(h int, levelKnown bool) []float64 {
	held := st.used[h]
	others := slices.Delete(slices.Clone(st.used), h, h+1)
	centers := make([]float64, len(others))
	var common []string
	for _, k := range st.keys {
		all := true
		for _, o := range append([]*index{held}, others...) {
			if _, ok := o.ln[k]; !ok {
				all = false
				break
			}
		}
		if all {
			common = append(common, k)
		}
	}
	for i, o := range others {
		centers[i] = meanOver(o.ln, common)
	}
	level := 0.0
	if st.hw {
		for i, o := range others {
			level += centers[i] + hardware(held.gpu, st.share, st.s.FP64) - hardware(o.gpu, st.share, st.s.FP64)
		}
		level /= float64(len(others))
	}
	step := max(1, len(st.keys)/maxHeldRows)
	var rs []float64
	for i := 0; i < len(st.keys); i += step {
		k := st.keys[i]
		t, ok := held.ln[k]
		if !ok {
			continue
		}
		shape, n := 0.0, 0
		for j, o := range others {
			if u, ok := o.ln[k]; ok {
				shape += u - centers[j]
				n++
			}
		}
		if n == 0 {
			continue
		}
		rs = append(rs, t-(shape/float64(n)+level))
	}
	if (levelKnown || !st.hw) && len(rs) > 0 {
		m := median(rs)
		for i := range rs {
			rs[i] -= m
		}
	}
	return slices.DeleteFunc(rs, func(r float64) bool { return math.IsNaN(r) })
}
