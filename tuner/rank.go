package tuner

import (
	"cmp"
	"math"
	"slices"
)

// quantile is the nearest-rank q-quantile of v: an observed value (the median of an even
// count is the lower middle one).
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// argsort returns the indexes of v in ascending order of value, ties in index order and NaNs
// last. The order is total, so the unstable sort has one answer: the stable sort's where v has
// no NaN, in half its time.
func argsort(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := v[a], v[b]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		case x == y || math.IsNaN(x) == math.IsNaN(y):
			return cmp.Compare(a, b)
		case math.IsNaN(x):
			return 1
		}
		return -1
	})
	return idx
}
