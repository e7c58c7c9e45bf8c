package tuner

import (
	"context"
	"errors"
)

// Random samples the space uniformly at random without replacement: the baseline every other
// strategy is measured against (Kernel Tuner's random_sample). It ends when the space is
// exhausted or the budget spent.
type Random struct {
	// Batch is the number of settings proposed at once (a GPU evaluator compiles a batch
	// together); 0 means 1.
	Batch int
}

// Name implements Method.
func (*Random) Name() string { return "random" }

// Search implements Method.
func (m *Random) Search(ctx context.Context, r *Run) error {
	s, err := newSampler(r.p.Variants)
	if errors.Is(err, errHuge) {
		return m.searchHuge(ctx, r)
	}
	if err != nil {
		return err
	}
	batch := max(1, m.Batch)
	for s.left() > 0 {
		// A round draws no more than the budget can still evaluate and the space still holds:
		// a Batch far above either would otherwise allocate and draw settings never run.
		n := min(batch, r.Left())
		if left := s.left(); left < uint64(n) {
			n = int(left)
		}
		// Without a budget n can still be the whole space: grow the round as it is drawn.
		cs := make([]Candidate, 0, min(n, 1<<12))
		for len(cs) < n {
			// Drawing a large round takes a while: let Ctrl-C end it.
			if len(cs)%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c, ok, err := s.next(r.rng)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			cs = append(cs, c)
		}
		if _, err := r.Evaluate(ctx, cs); err != nil {
			return err
		}
	}
	return nil
}

// searchHuge draws from spaces too large to number (over 2^64 settings), where a repeat is so
// unlikely that drawing with replacement and skipping what the cache holds is exact enough.
func (m *Random) searchHuge(ctx context.Context, r *Run) error {
	for {
		c, err := drawWeighted(r)
		if err != nil {
			return err
		}
		if r.Seen(c) {
			continue
		}
		if _, err := r.Evaluate(ctx, []Candidate{c}); err != nil {
			return err
		}
	}
}
