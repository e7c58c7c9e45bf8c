package transfer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"smart/internal/stats"
	"smart/models"
)

// maxHeldRows bounds the rows of a held-out source the interval reads: enough for its
// quantiles, and a 10,000-setting cache stays fast.
const maxHeldRows = 2000

// minShotsForBound is the fewest shots whose left-out errors bound an interval: their range,
// nominally at (n-1)/(n+1), 60% for 4 (the level n exchangeable errors' range would hold).
const minShotsForBound = 4

// interval measures the prediction's errors: on the shots, each predicted without it (jackknife
// residuals, taken at the ranks split-conformal prediction takes: conformalBounds), where they
// are enough to bound the level's interval, or, where at least minShotsForBound are too few for
// it, their range at the lower level it nominally holds; else
// on the sources, each predicted from the others as the target is (after the level, where
// shots set it). Sources of none of the target's vendor give none: their errors on one another
// say nothing of their error on another vendor's GPU. Nor do fewer than minShotsForBound sources
// where no shot sets the level: a zero-shot level errs on a GPU as a whole, so each held-out
// source is one draw of that error however many settings it ran (two workstation GPUs predicted
// from each other within 9% left the A100 at 26% MAPE: docs/results/transfer.md). Nil, and why, where nothing measures it.
// The levels are nominal: the correction was chosen on the same residuals, and jackknife
// residuals carry no finite-sample guarantee, so coverage is measured (bench/fewshot).
func (st *state) interval(c correction) (*models.Interval, string) {
	level := st.s.Level
	shots := fmt.Sprintf("%d shots on %s, each predicted without it", len(c.loo), st.targetName())
	if lo, hi, ok := conformalBounds(c.loo, level); ok {
		return &models.Interval{Level: level, LogLo: lo, LogHi: hi, Stencils: 1, Rows: len(c.loo), From: shots}, ""
	}
	if n := len(c.loo); n >= minShotsForBound {
		// Too few for the level asked; the most they bound is their range, at (n-1)/(n+1).
		s := slices.Sorted(slices.Values(c.loo))
		shots += fmt.Sprintf(": %d shots bound no more than this level; %d bound %.0f%%", n, minShotsForInterval(level), 100*level)
		return &models.Interval{Level: float64(n-1) / float64(n+1), LogLo: s[0], LogHi: s[n-1], Stencils: 1, Rows: n, From: shots}, ""
	}
	few := fmt.Sprintf("fewer than %d shots (the fewest whose left-out errors bound an interval)", minShotsForBound)
	switch {
	case st.foreign:
		return nil, fmt.Sprintf("%s, and every source is another vendor's than the target's: the sources' errors on one another do not measure theirs on it", few)
	case len(st.used) < 2:
		return nil, fmt.Sprintf("one source GPU and %s leave no errors to measure it on", few)
	}
	var groups [][]float64
	for h := range st.used {
		groups = append(groups, st.heldOut(h, c.n > 0))
	}
	from := fmt.Sprintf("%d source GPUs, each predicted from the others", len(st.used))
	if c.n > 0 {
		from += " after its level"
	}
	iv := models.NewInterval(groups, level, from)
	switch {
	case iv.Rows == 0:
		return nil, "the source GPUs share no setting to predict one from the others"
	case st.levelMoved(c) && iv.Stencils < minShotsForBound:
		return nil, fmt.Sprintf("zero-shot, the target's level is moved from the sources', and %d source GPUs, each predicted from the others, are %d errors of that level: too few to bound the target's (%d are the fewest, as for shots); %d settings measured on the target bound their range (at a nominal %.0f%%), %d the %.0f%% interval",
			iv.Stencils, iv.Stencils, minShotsForBound, minShotsForBound, 100*float64(minShotsForBound-1)/float64(minShotsForBound+1), minShotsForInterval(level), 100*level)
	}
	return &iv, ""
}

// levelMoved reports whether the prediction sets the target's level from the sources' levels
// moved by a ratio (the hardware's, or --ratio's), with no shot to correct it: then each held-out
// source's errors share one level error, and the sources bound the level no better than as
// many shots would.
func (st *state) levelMoved(c correction) bool {
	return c.n == 0 && (st.hw || st.s.Ratio != nil)
}

// conformalBounds are the bounds of a level's interval from n residuals r at the ranks of split
// conformal prediction: the ceil((n+1)(1+level)/2)-th smallest as the upper and the
// floor((n+1)(1-level)/2)-th as the lower, which would hold a further residual with probability
// at least level were the n exchangeable with it; false where n is too few for either (that
// bound would be infinite).
func conformalBounds(r []float64, level float64) (lo, hi float64, ok bool) {
	n := len(r)
	const eps = 1e-9 // (n+1)(1+level)/2 lands on a whole number in exact arithmetic only
	up := int(math.Ceil(float64(n+1)*(1+level)/2 - eps))
	down := int(math.Floor(float64(n+1)*(1-level)/2 + eps))
	if n == 0 || up > n || down < 1 {
		return 0, 0, false
	}
	s := slices.Sorted(slices.Values(r))
	return s[down-1], s[up-1], true
}

// minShotsForInterval is the fewest shots whose left-out errors bound an interval at level in
// (0, 1): both of conformalBounds' ranks fall within n where n(1-level) >= 1+level.
func minShotsForInterval(level float64) int {
	return max(1, int(math.Ceil((1+level)/(1-level)-1e-9)))
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
		m := stats.Median(rs)
		for i := range rs {
			rs[i] -= m
		}
	}
	return rs
}
