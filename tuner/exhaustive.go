package tuner

import "context"

// Exhaustive evaluates every setting in the order of the spaces (variant by variant, in index
// order): the reference that finds the optimum, and Kernel Tuner's brute_force.
type Exhaustive struct{}

// Name implements Method.
func (Exhaustive) Name() string { return "exhaustive" }

// Search implements Method.
func (Exhaustive) Search(ctx context.Context, r *Run) error {
	var err error
	all(r.p.Variants, func(c Candidate) bool {
		_, err = r.Evaluate(ctx, []Candidate{c})
		return err == nil
	})
	return err
}
