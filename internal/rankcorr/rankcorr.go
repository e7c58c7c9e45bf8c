// Package rankcorr measures how well one list of times orders like another: Spearman's rank
// correlation, the question the bench commands ask of every estimate (does it rank a stencil's
// settings as the GPU does?).
package rankcorr

import (
	"sort"

	"gonum.org/v1/gonum/stat"
)

// Spearman returns Spearman's rank correlation of x and y (the Pearson correlation of their
// ranks, ties sharing their mean rank): 1 when they order alike. x and y must be of one length.
func Spearman(x, y []float64) float64 {
	return stat.Correlation(Ranks(x), Ranks(y), nil)
}

// Ranks returns the rank of each value (1-based), ties sharing their mean rank.
func Ranks(xs []float64) []float64 {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	out := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			out[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return out
}
