package tuner

import (
	"context"
	"fmt"
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
	left, err := pruneSpace(ctx, r, m, len(r.p.Variants), 0)
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
