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
	return func(set smart.Setting) (float64, bool) {
		c := Candidate{Variant: v, Setting: set}
		if o, ok := r.Lookup(c); ok {
			return o.Value, true
		}
		if s.e == nil || sp.Check(set) != nil {
			return 0, false
		}
		mean, _ := s.e.predict([][]float64{s.enc.row(c)})
		return math.Exp(mean[0]), true
	}
}

// maxTies bounds the rows tied in one tree that thompsonRows ranks by the ensemble's mean.
const maxTies = 64

// thompsonRows picks up to k of the encoded rows by Thompson sampling: for each pick one tree
// of the ensemble, a draw from the model's posterior, names its fastest row not picked yet;
// rows that tree cannot tell apart (at most maxTies of them, drawn at random) are told apart by
// the ensemble's mean. Without a model it picks at random.
func (s *surrogate) thompsonRows(rows [][]float64, k int, rng *rand.Rand) []int {
	k = min(k, len(rows))
	if s.e == nil {
		return rng.Perm(len(rows))[:k]
	}
	mean := map[int]float64{} // of the tied rows only: the ensemble costs a tree per row
	meanOf := func(i int) float64 {
		if v, ok := mean[i]; ok {
			return v
		}
		m, _ := s.e.predict(rows[i : i+1])
		mean[i] = m[0]
		return m[0]
	}
	out := make([]int, 0, k)
	idx := make([]int, len(rows)) // the rows not picked yet, in any order
	for i := range idx {
		idx[i] = i
	}
	var ties []int
	for len(out) < k {
		t := &s.e.trees[rng.IntN(len(s.e.trees))]
		ties = t.fastest(rows, idx, ties)
		if len(ties) > maxTies {
			// A tree with few leaves ties thousands of rows: rank a random few by the mean.
			for j := range maxTies {
				k := j + rng.IntN(len(ties)-j)
				ties[j], ties[k] = ties[k], ties[j]
			}
			ties = ties[:maxTies]
		}
		bi := ties[0]
		for _, i := range ties[1:] {
			if meanOf(i) < meanOf(bi) {
				bi = i
			}
		}
		idx[slices.Index(idx, bi)] = idx[len(idx)-1]
		idx = idx[:len(idx)-1]
		out = append(out, bi)
	}
	return out
}
