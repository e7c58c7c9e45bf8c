package tuner

import (
	"context"
	"math"
	"slices"
)

// pruneSpace runs IterML's pruning loop with m's settings over the first nv variants of r and
// returns the remaining candidates not yet evaluated, ranked fastest first by the last model
// (in random order when no model could be fitted). stopSize, when positive, overrides
// m.StopSize. The Pipeline prunes with it too.
func pruneSpace(ctx context.Context, r *Run, m *IterML, nv, stopSize int) ([]Candidate, error) {
	poolMax := m.Pool
	if poolMax == 0 {
		poolMax = 1 << 15
	}
	d, ids, err := drawPool(r, nv, poolMax, true)
	if err != nil {
		return nil, err
	}
	n0 := len(d) + r.Evaluations()
	pick := m.Pick
	if pick == 0 {
		ratio := m.PickRatio
		if ratio == 0 {
			ratio = 0.01
		}
		pick = max(1, int(math.Ceil(ratio*float64(n0))))
	}
	cut := m.CutRatio
	if cut == 0 {
		cut = 0.5
	}
	if stopSize == 0 {
		stopSize = m.StopSize
	}
	if stopSize == 0 {
		stopSize = pick
	}
	enc := newEncoder(r.p.Variants[:nv])
	rows := enc.rows(d, ids) // rows[i] encodes d[i]: they move together
	var pred []float64
	for iter := 0; len(d) > stopSize; iter++ {
		// Pick a sample at random from the remaining space: a partial Fisher-Yates shuffle.
		k := min(pick, len(d))
		for i := range k {
			j := i + r.rng.IntN(len(d)-i)
			d[i], d[j] = d[j], d[i]
			rows[i], rows[j] = rows[j], rows[i]
		}
		sample := d[:k]
		d, rows = d[k:], rows[k:]
		if _, err := r.Evaluate(ctx, sample); err != nil {
			return nil, err
		}
		predict, err := fitRuns(ctx, r, m, enc, uint64(iter))
		if err != nil {
			return nil, err
		}
		if predict == nil {
			pred = nil
			continue // nothing has succeeded yet: no model to prune with
		}
		if pred, err = predict(rows); err != nil {
			return nil, err
		}
		sortByPrediction(d, pred, rows)
		keep := min(len(d), max(stopSize, int(math.Ceil((1-cut)*float64(len(d))))))
		d, pred, rows = d[:keep], pred[:keep], rows[:keep]
	}
	if pred == nil && len(d) > 0 {
		predict, err := fitRuns(ctx, r, m, enc, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		if predict != nil {
			if pred, err = predict(rows); err != nil {
				return nil, err
			}
			sortByPrediction(d, pred, rows)
		}
	}
	return d, nil
}

// fitRuns trains m's model on everything evaluated so far; nil when nothing has succeeded.
func fitRuns(ctx context.Context, r *Run, m *IterML, enc *encoder, iter uint64) (predictor, error) {
	X, y := trainingSet(enc, r.History())
	if X == nil {
		return nil, nil
	}
	return m.Model.fit(ctx, enc.features(), X, y, r.Seed()*1_000_003+iter, m.Threads)
}

// sortByPrediction orders candidates, their predicted values and their rows by predicted value,
// fastest first; ties keep their order.
func sortByPrediction(cs []Candidate, pred []float64, rows [][]float64) {
	idx := argsort(pred)
	c2, p2, r2 := slices.Clone(cs), slices.Clone(pred), slices.Clone(rows)
	for i, j := range idx {
		cs[i], pred[i], rows[i] = c2[j], p2[j], r2[j]
	}
}
