package tuner

import (
	"math"
	"math/rand/v2"
	"slices"

	"smart"
)

// surrogate is the Trees ensemble fitted to what a run has evaluated (ln of the objective;
// failures as twice the slowest success), for the strategies that consult a model
// between evaluations: csTuner's grouping lookups, the Pipeline's screening and Bayes.
type surrogate struct {
	enc *encoder
	e   *ensemble // nil while nothing has succeeded
}

// fitSurrogate fits the ensemble with parameters p to the evaluations hist. With cap in (0, 1)
// the targets above their cap-quantile are lowered to it: the model then spends its splits
// telling the fast settings apart, not ranking the slow ones (a failure and a setting 100x
// slower are equally useless).
func fitSurrogate(hist []Outcome, enc *encoder, p ensembleParams, cap float64, rng *rand.Rand) *surrogate {
	s := &surrogate{enc: enc}
	if X, y := trainingSet(enc, hist); X != nil {
		if cap > 0 && cap < 1 {
			q := quantile(y, cap)
			for i := range y {
				y[i] = min(y[i], q)
			}
		}
		s.e = fitEnsemble(X, y, p, rng)
	}
	return s
}

// timeOf answers the objective of a setting of variant v: measured where the run has it,
// predicted otherwise; not ok for an invalid setting.
func (s *surrogate) timeOf(r *Run, v int) timeOf {
	sp := r.p.Variants[v].Space
	row := make([]float64, s.enc.width()) // reused: csTuner's grouping asks thousands of settings
	return func(set smart.Setting) (float64, bool) {
		c := Candidate{Variant: v, Setting: set}
		if o, ok := r.Lookup(c); ok {
			return o.Value, true
		}
		if s.e == nil || sp.Check(set) != nil {
			return 0, false
		}
		clear(row)
		s.enc.put(row, c)
		return math.Exp(s.e.mean(row)), true
	}
}

// maxTies bounds the rows tied in one tree that thompsonRows ranks by the ensemble's mean.
const maxTies = 64

// screenRows is the encoded candidates one Thompson pick ranks, kept two ways: rows, to walk
// one down the trees (the ties' means), and columns, by which tree.fastest partitions thousands
// of rows. The columns may hold more positions than there are rows (those of a whole pool,
// built once, not per pick); row i is at position at[i].
type screenRows struct {
	rows [][]float64
	cols [][]float64
	at   []int
}

// thompsonBufs are thompsonRows' buffers, which its caller keeps for the next call (a pool's
// surrogate is refitted often, its screens stay the same size).
type thompsonBufs struct{ idx, inv, pos, ties []int }

// thompsonRows picks up to k of the screen's rows by Thompson sampling: for each pick one tree
// of the ensemble, a draw from the model's posterior, names its fastest row not picked yet;
// rows that tree cannot tell apart (at most maxTies of them, drawn at random) are told apart by
// the ensemble's mean. Without a model it picks at random. It works in b's buffers.
func (s *surrogate) thompsonRows(sc screenRows, k int, rng *rand.Rand, b *thompsonBufs) []int {
	rows := sc.rows
	k = min(k, len(rows))
	if s.e == nil {
		return rng.Perm(len(rows))[:k]
	}
	mean := map[int]float64{} // of the tied rows only: the ensemble costs a tree per row
	var need [][]float64      // rows of ties without a mean yet
	var needIdx []int
	out := make([]int, 0, k)
	// The positions of the rows not picked yet, in any order, and the row at each position.
	idx := slices.Grow(b.idx[:0], len(rows))[:len(rows)]
	copy(idx, sc.at)
	npos := 0
	for _, p := range sc.at {
		npos = max(npos, p+1)
	}
	inv := slices.Grow(b.inv[:0], npos)[:npos]
	for i, p := range sc.at {
		inv[p] = i
	}
	pos, ties := b.pos, b.ties
	defer func() { b.idx, b.inv, b.pos, b.ties = idx[:0], inv[:0], pos[:0], ties[:0] }()
	for len(out) < k {
		t := &s.e.trees[rng.IntN(len(s.e.trees))]
		pos = t.fastest(sc.cols, idx, pos)
		ties = ties[:0]
		for _, p := range pos {
			ties = append(ties, inv[p])
		}
		slices.Sort(ties) // in the rows' order, whatever their positions and fastest's order
		if len(ties) > maxTies {
			// A tree with few leaves ties thousands of rows: rank a random few by the mean.
			for j := range maxTies {
				k := j + rng.IntN(len(ties)-j)
				ties[j], ties[k] = ties[k], ties[j]
			}
			ties = ties[:maxTies]
		}
		if len(ties) > 1 {
			// The means of the ties, walked down the trees together (predict's blocks).
			need, needIdx = need[:0], needIdx[:0]
			for _, i := range ties {
				if _, ok := mean[i]; !ok {
					need, needIdx = append(need, rows[i]), append(needIdx, i)
				}
			}
			m, _ := s.e.predict(need)
			for j, i := range needIdx {
				mean[i] = m[j]
			}
		}
		bi := ties[0]
		for _, i := range ties[1:] {
			if mean[i] < mean[bi] {
				bi = i
			}
		}
		idx[slices.Index(idx, sc.at[bi])] = idx[len(idx)-1]
		idx = idx[:len(idx)-1]
		out = append(out, bi)
	}
	return out
}
