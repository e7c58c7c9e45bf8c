// Package hist grows regression trees on binned features from per-row gradients and hessians,
// the building block shared by gradient boosting (models/gbdt) and random forests
// (models/forest), and writes and reads tree ensembles in LightGBM's version-3 text format.
//
// Features are quantile-binned into at most 256 bins once; a tree is grown from histograms of
// gradient and hessian sums per bin, with the smaller child's histogram built from its rows and
// the larger one's obtained by subtraction from the parent.
package hist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
)

// MaxBins is the most bins a feature can have: bin indices are bytes.
const MaxBins = 256

// Binner maps feature values to bins. Feature f's bin b holds the values x with
// Upper[f][b-1] < x <= Upper[f][b]; the last upper bound is +Inf. A tree split after bin b is
// the LightGBM decision x <= Upper[f][b].
type Binner struct {
	Upper [][]float64
	Min   []float64 // smallest value seen per feature, for LightGBM's feature_infos
	Max   []float64
}

// FitBinner finds the bins of each column of X from at most sample rows (0: all), sorting up to
// threads columns at once. Columns with at most maxBins distinct values get one bin per value,
// split halfway between neighbours, as LightGBM does; others get quantile bins of about equal
// row counts.
func FitBinner(X [][]float64, maxBins, sample, threads int, rng *rand.Rand) (*Binner, error) {
	if maxBins < 2 || maxBins > MaxBins {
		return nil, fmt.Errorf("max bins is %d; use 2 to %d", maxBins, MaxBins)
	}
	if len(X) == 0 {
		return nil, fmt.Errorf("no rows to bin")
	}
	rows := X
	if sample > 0 && len(X) > sample {
		rows = make([][]float64, sample)
		for i, j := range rng.Perm(len(X))[:sample] {
			rows[i] = X[j]
		}
	}
	nf := len(X[0])
	b := &Binner{Upper: make([][]float64, nf), Min: make([]float64, nf), Max: make([]float64, nf)}
	parallel(nf, threads, func(lo, hi int) {
		col := make([]float64, len(rows))
		for f := lo; f < hi; f++ {
			for i, r := range rows {
				col[i] = r[f]
			}
			slices.Sort(col)
			b.Upper[f] = cuts(col, maxBins)
			b.Min[f], b.Max[f] = col[0], col[len(col)-1]
		}
	})
	// The sample may miss the extremes; feature_infos should cover every training row.
	if len(rows) != len(X) {
		for _, r := range X {
			for f, v := range r {
				b.Min[f] = min(b.Min[f], v)
				b.Max[f] = max(b.Max[f], v)
			}
		}
	}
	return b, nil
}

// cuts returns the upper bounds of the bins of the sorted values.
func cuts(sorted []float64, maxBins int) []float64 {
	distinct := 1
	for i := 1; i < len(sorted); i++ {
		if sorted[i] != sorted[i-1] {
			distinct++
		}
	}
	upper := make([]float64, 0, min(distinct, maxBins))
	if distinct <= maxBins {
		for i := 1; i < len(sorted); i++ {
			if sorted[i] != sorted[i-1] {
				upper = append(upper, midpoint(sorted[i-1], sorted[i]))
			}
		}
		return append(upper, math.Inf(1))
	}
	// Greedy quantiles: close a bin once it holds its share of the rows still to place, so a
	// heavy value does not starve the bins after it. Runs of equal values stay in one bin.
	rest, binsLeft, acc := len(sorted), maxBins, 0
	for i := 0; binsLeft > 1; {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if j == len(sorted) {
			break
		}
		acc += j - i
		if float64(acc) >= float64(rest)/float64(binsLeft) {
			upper = append(upper, midpoint(sorted[i], sorted[j]))
			rest -= acc
			acc = 0
			binsLeft--
		}
		i = j
	}
	return append(upper, math.Inf(1))
}

// midpoint is halfway between a < b, or a where the halfway point rounds to b.
func midpoint(a, b float64) float64 {
	m := a + (b-a)/2
	if m >= b {
		return a
	}
	return m
}

// Bin returns the bin of value v of feature f: the first bin whose upper bound is >= v.
func (b *Binner) Bin(f int, v float64) uint8 {
	up := b.Upper[f]
	lo, hi := 0, len(up)-1 // the last bound is +Inf, so the answer is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if up[mid] < v {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return uint8(lo)
}

// Matrix is a binned feature matrix, row-major: row r's bins are Bins[r*Cols : (r+1)*Cols].
type Matrix struct {
	Rows, Cols int
	Bins       []uint8
	NumBins    []int       // bins of each feature
	Upper      [][]float64 // the binner's upper bounds: a split after bin b is x <= Upper[f][b]
}

// Transform bins the rows of X, up to threads chunks of rows at once.
func (b *Binner) Transform(X [][]float64, threads int) *Matrix {
	nf := len(b.Upper)
	m := &Matrix{Rows: len(X), Cols: nf, Bins: make([]uint8, len(X)*nf), NumBins: make([]int, nf), Upper: b.Upper}
	for f := range b.Upper {
		m.NumBins[f] = len(b.Upper[f])
	}
	parallel(len(X), threads, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			for f, v := range X[r] {
				m.Bins[r*nf+f] = b.Bin(f, v)
			}
		}
	})
	return m
}

// parallel calls fn on up to threads contiguous chunks of [0, n) concurrently.
func parallel(n, threads int, fn func(lo, hi int)) {
	threads = max(1, min(threads, n))
	var wg sync.WaitGroup
	chunk := (n + threads - 1) / threads
	for lo := 0; lo < n; lo += chunk {
		wg.Go(func() { fn(lo, min(n, lo+chunk)) })
	}
	wg.Wait()
}
