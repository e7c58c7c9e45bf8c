package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"

	"smart"
	"smart/dataset"
)

// priorTimes answers what a prior (Bayes.Prior, Pipeline.Surrogate) says of candidates, asking
// it once per candidate (the trees encode the runs again at every fit).
type priorTimes struct {
	ctx      context.Context
	r        *Run
	prior    smart.Evaluator
	learning Learning // the prior's learning for this search, if it learns
	fed      int      // runs told to it
	memo     map[string]float64
	err      error // the first failure of the prior other than a setting it lacks
}

// A Learner is a prior that learns from a search's runs on the target (FewShot).
type Learner interface {
	// Learn starts what one search learns: searches sharing the Learner learn apart.
	Learn() Learning
}

// Learning is one search's learning prior.
type Learning interface {
	smart.Evaluator
	// Observe tells it a run and its objective value (+Inf for a failure), and reports
	// whether what it says of any setting changed.
	Observe(m smart.Measurement, value float64) (changed bool)
}

func newPriorTimes(ctx context.Context, r *Run, prior smart.Evaluator) *priorTimes {
	p := &priorTimes{ctx: ctx, r: r, prior: prior, memo: map[string]float64{}}
	if l, ok := prior.(Learner); ok {
		p.learning = l.Learn()
		p.prior = p.learning
	}
	return p
}

// learn tells a learning prior the runs since the last call, forgetting what it said before
// where that changed.
func (p *priorTimes) learn() {
	if p.learning == nil {
		return
	}
	h := p.r.History()
	for ; p.fed < len(h); p.fed++ {
		if p.learning.Observe(h[p.fed].Measurement, h[p.fed].Value) {
			clear(p.memo)
		}
	}
}

// time is the prior's objective of c; +Inf where the prior fails the setting or, replayed,
// lacks it.
func (p *priorTimes) time(c Candidate) float64 {
	p.learn()
	k := p.r.variantKey(c)
	if t, ok := p.memo[string(k)]; ok {
		return t
	}
	key := string(k) // the memo keeps a copy: k is the run's buffer, reused by the next key
	t := math.Inf(1)
	m, err := p.prior.Evaluate(p.ctx, p.r.query(Candidate{Variant: c.Variant, Setting: c.Setting.Clone()}))
	switch {
	case errors.Is(err, dataset.ErrNotMeasured):
	case err != nil:
		if p.err == nil {
			p.err = fmt.Errorf("bayes: the prior: %w", err)
		}
	default:
		t = p.r.p.value(m)
	}
	p.memo[key] = t
	return t
}

// feature is the trees' column of the prior: ln of its time, and for a setting it has no
// time for a finite value above every other, which a split can still set apart.
func (p *priorTimes) feature(c Candidate) float64 {
	if t := p.time(c); t > 0 && !math.IsInf(t, 1) {
		return math.Log(t)
	}
	return math.MaxFloat32
}

// forgetPool drops what the prior said of the settings of a spent pool, keeping the settings
// that ran (the trees encode them at every fit): without it the memo would grow by a pool's
// worth with every refill.
func (p *priorTimes) forgetPool() {
	keep := make(map[string]float64, p.r.Evaluations())
	for _, o := range p.r.History() {
		k := p.r.variantKey(o.Candidate)
		if t, ok := p.memo[string(k)]; ok {
			keep[string(k)] = t
		}
	}
	p.memo = keep
}

// fastest returns the n candidates the prior ranks fastest; those it has no time for rank last.
func (p *priorTimes) fastest(cands []Candidate, n int) []Candidate {
	t := make([]float64, len(cands))
	for i, c := range cands {
		t[i] = p.time(c)
	}
	idx := argsort(t)
	out := make([]Candidate, 0, n)
	for _, i := range idx[:min(n, len(idx))] {
		out = append(out, cands[i])
	}
	return out
}
