package tuner

import (
	"context"
	"errors"
	"math/rand/v2"

	"smart"
)

// Bayes is Bayesian optimisation with the Trees ensemble as its surrogate and Thompson sampling
// as its acquisition: after Initial random runs, each round fits the bagged regression trees to
// every run so far and runs Batch settings, each the fastest setting not run yet according to
// one tree drawn at random (a draw from the model's posterior). Where the trees agree the
// search exploits; where bootstrap samples disagree it explores. Run times above the Cap
// quantile are seen as equal, so the trees split on what separates the fast settings.
//
// The trees handle the discrete, constrained and partly categorical parameters of kernel
// spaces without a distance between settings, which a Gaussian process needs, and fit in far
// less time than a Gaussian process's posterior over the space takes. A space larger than Pool
// is searched through a uniform sample of Pool settings, of which each round ranks at most
// Screen.
type Bayes struct {
	Initial int     // random runs before the first fit (0 means 10)
	Trees   int     // trees of the surrogate (0 means 16)
	Batch   int     // settings run per round (0 means 2)
	Cap     float64 // quantile of the run times above which they count as equal (0 means 0.5; 1 keeps them all apart)
	Pool    int     // settings a larger space is searched through (0 means 1<<15)
	Screen  int     // settings not run yet that one round ranks (0 means 8192)
	// Prior, when set, ranks settings before any run, at no cost in evaluations: a Transfer
	// from other GPUs' measurements of the kernel, a runtime model, the analytic model. The
	// Initial first runs are then the settings of the pool it ranks fastest instead of random
	// ones, and the trees get the prior's time as one more feature: they learn where the real
	// runs follow the prior and where they depart from it, which parameters alone cannot say
	// after a few runs.
	Prior smart.Evaluator
}

// Name implements Method.
func (*Bayes) Name() string { return "bayes" }

func (m *Bayes) withDefaults() Bayes {
	c := *m
	setDefault(&c.Initial, 10)
	setDefault(&c.Trees, 16)
	setDefault(&c.Batch, 2)
	setDefault(&c.Pool, 1<<15)
	setDefault(&c.Screen, 8192)
	setDefault(&c.Cap, 0.5)
	return c
}

// Search implements Method.
func (m *Bayes) Search(ctx context.Context, r *Run) error {
	c := m.withDefaults()
	if c.Initial < 0 || c.Trees < 0 || c.Batch < 0 || c.Pool < 0 || c.Screen < 0 || !(c.Cap >= 0 && c.Cap <= 1) {
		return errors.New("bayes: counts must not be negative and the cap must lie in [0, 1]")
	}
	nv := len(r.p.Variants)
	p := ensembleParams{trees: c.Trees, minLeaf: 1, featureFrac: 1}
	s := newThompsonPool(r, nv, c.Pool, c.Screen, p, c.Cap, rand.New(rand.NewPCG(r.Seed(), 0xba7e5)))
	var pt *priorTimes
	if c.Prior == nil {
		if err := randomFrom(ctx, r, nv, c.Initial); err != nil {
			return err
		}
		if err := s.fill(); err != nil {
			return err
		}
	} else {
		pt = newPriorTimes(ctx, r, c.Prior)
		s.enc.prior = pt.feature
		if err := s.fill(); err != nil {
			return err
		}
		first := pt.fastest(s.rest, c.Initial)
		if pt.err != nil {
			return pt.err
		}
		if _, err := r.Evaluate(ctx, first); err != nil {
			return err
		}
	}
	for {
		s.compact()
		if s.left() == 0 {
			// The pool is spent: draw another, unless every setting has run.
			if pt != nil {
				pt.forgetPool()
			}
			if err := s.fill(); err != nil || len(s.rest) == 0 {
				return err
			}
		}
		picks := s.thompson(nil, min(c.Batch, r.Left())) // a huge --batch ranks no more than can run
		if pt != nil && pt.err != nil {
			return pt.err // a refilled pool's settings asked the prior
		}
		if _, err := r.Evaluate(ctx, picks); err != nil {
			return err
		}
	}
}
