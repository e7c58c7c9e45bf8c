package transfer

import (
	"cmp"
	"fmt"
	"slices"

	"smart/models"
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
func (st *state) interval(c correction) *models.Interval {
	if len(c.loo) >= minShotsForInterval {
		iv := models.NewInterval([][]float64{c.loo}, st.s.Level,
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
	iv := models.NewInterval(groups, st.s.Level, from)
	if iv.Rows == 0 {
		return nil
	}
	return &iv
}

func (st *state) targetName() string {
	return cmp.Or(st.target.GPU.Name, st.target.Name, "the target")
}

// heldOut is ln(measured/predicted) of source h's settings predicted from the other sources,
// kernel by kernel; levelKnown centres them, as a level from shots would.
func (st *state) heldOut(h int, levelKnown bool) []float64 {
	held := st.used[h]
	others := slices.Delete(slices.Clone(st.used), h, h+1)
	var rs []float64
	for _, id := range st.ids {
		keys := st.byID[id]
		common := commonKeys(keys, append([]*index{held}, others...))
		centers := map[*index]float64{}
		for _, o := range others {
			if c, ok := meanOver(o.ln, common, keys); ok {
				centers[o] = c
			}
		}
		level, ok := st.levelFrom(others, func(ix *index) (float64, bool) { c, ok := centers[ix]; return c, ok }, held.gpu, st.share)
		if !ok {
			continue
		}
		step := max(1, len(keys)/maxHeldRows)
		for i := 0; i < len(keys); i += step {
			t, ok := held.ln[keys[i]]
			if !ok {
				continue
			}
			if st.s.Ratio != nil {
				if pred, n := st.scaled(keys[i], st.vars[keys[i]], others, held.gpu); n > 0 {
					rs = append(rs, t-pred)
				}
				continue
			}
			shape, n := 0.0, 0
			for _, o := range others {
				if u, ok := o.ln[keys[i]]; ok {
					shape += u - centers[o]
					n++
				}
			}
			if n > 0 {
				rs = append(rs, t-(shape/float64(n)+level))
			}
		}
	}
	if (levelKnown || !st.hw) && len(rs) > 0 {
		m := median(rs)
		for i := range rs {
			rs[i] -= m
		}
	}
	return rs
}
