package tuner

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// IterML is the iterative pruning of Cui and Feng (CF'19, Algorithm 1): each iteration samples
// a fixed number of settings at random from the remaining space, measures them, fits a
// regression model to everything measured so far, predicts the rest of the space and drops
// the predicted slowest share. When the space is small enough it searches what is left in
// predicted order, fastest first (the paper's exhaustive search of the pruned space). Spaces
// larger than Pool are represented by a uniform random sample of Pool settings.
type IterML struct {
	// PickRatio is the share of the space sampled in each iteration (0 means 0.01); the number
	// it gives stays the same in every iteration, as in the paper.
	PickRatio float64
	// Pick, when positive, is the number of settings sampled in each iteration, overriding
	// PickRatio.
	Pick int
	// CutRatio is the share of the remaining space dropped after each iteration (0 means 0.5).
	CutRatio float64
	// StopSize ends the pruning once at most this many settings remain (0 means Pick).
	StopSize int
	// Model is the regression model (empty means Forest).
	Model Model
	// Pool bounds the settings a model ranks (0 means 1<<15).
	Pool int
	// Threads bounds the model's parallelism (0: all CPUs).
	Threads int

	variants int // the first variants searched (0: all); the Pipeline keeps the ranked ones
}

// Name implements Method.
func (*IterML) Name() string { return "iterml" }

func (m *IterML) check() error {
	switch {
	case !(m.PickRatio >= 0 && m.PickRatio <= 1): // NaN too
		return fmt.Errorf("iterml: pick ratio %v is outside [0, 1]", m.PickRatio)
	case !(m.CutRatio >= 0 && m.CutRatio < 1):
		return fmt.Errorf("iterml: cut ratio %v is outside [0, 1)", m.CutRatio)
	case m.Pick < 0 || m.StopSize < 0 || m.Pool < 0:
		return fmt.Errorf("iterml: pick, stop size and pool must not be negative")
	}
	_, err := ParseModel(string(m.Model))
	return err
}

// Search implements Method.
func (m *IterML) Search(ctx context.Context, r *Run) error {
	if err := m.check(); err != nil {
		return err
	}
	left, err := m.prune(ctx, r, 0)
	if err != nil {
		return err
	}
	for _, c := range left {
		if _, err := r.Evaluate(ctx, []Candidate{c}); err != nil {
			return err
		}
	}
	return nil
}

// prune runs the pruning loop and returns the remaining candidates not yet evaluated, ranked
// fastest first by the last model (in random order when no model could be fitted). stopSize,
// when positive, overrides m.StopSize.
func (m *IterML) prune(ctx context.Context, r *Run, stopSize int) ([]Candidate, error) {
	poolMax := m.Pool
	if poolMax == 0 {
		poolMax = 1 << 15
	}
	nv := m.variants
	if nv == 0 {
		nv = len(r.p.Variants)
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
		predict, err := m.fit(ctx, r, enc, uint64(iter))
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
		predict, err := m.fit(ctx, r, enc, math.MaxUint32)
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

// fit trains the model on everything evaluated so far; nil when nothing has succeeded.
func (m *IterML) fit(ctx context.Context, r *Run, enc *encoder, iter uint64) (predictor, error) {
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
