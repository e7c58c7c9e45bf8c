package tuner

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"smart"
)

// Pipeline is the chain the toolkit exists for. The optimization combinations come ranked by
// the OC classifier (the order of Problem.Variants; RankOCs builds it) and the first Variants
// of them are searched. Their spaces are pruned with IterML: on the Surrogate (a runtime model
// or the analytic model, free of real runs) when there is one, else on a first batch of real
// runs. A genetic search on the real Evaluator finishes: csTuner's parameter groups and
// re-indexed genes over the pruned space, all genes evolving at once. Thompson sampling over a
// surrogate refitted to every real run so far picks the Batch settings a generation runs,
// among the children and the settings not run yet, so a setting the pruning dropped stays
// within reach once the model learns better. When the genetic search settles it starts again
// from the space the current model prunes to, until the budget is spent or every setting has
// run.
//
// With a Surrogate, its time is also a feature of the trees, which learn where the real runs
// follow it, and Hedge of its fastest settings, spread out, run beside the search as a hedge
// that the trees and the genetic search never learn from: a surrogate right at its top finds
// the optimum in a few runs, and one wrong there cannot hold the search in the corner of the
// space its fastest settings share. Once the best run has stood for LinearStall evaluations,
// one pick per generation comes from a Bayesian linear model of the parameters' values and of
// pairs of small parameters' values, which adds up effects learnt in other runs: trees cannot
// predict a combination faster than its runs so far. docs/performance.md (Tuning) has the
// measurements behind these choices.
type Pipeline struct {
	Variants  int             // ranked variants searched (0 means 2)
	Surrogate smart.Evaluator // prunes without real runs, and ranks the hedge, when set
	First     int             // real runs of the first batch (0 means 10)
	Pick      int             // real runs per IterML iteration without a surrogate (0 means 4)
	Cut       float64         // IterML's cut ratio (0 means 0.5)
	Keep      int             // settings the pruning keeps (0 means 256)
	Batch     int             // settings run per generation (0 means 2)
	Pool      int             // settings a model ranks in a larger space (0 means 1<<15)
	// Screen bounds the settings not run yet that Thompson sampling ranks in one generation; a
	// larger pool is subsampled afresh each time (0 means 8192). It trades the reach of the
	// screen against the strategy's time per evaluation.
	Screen     int
	Hedge      int // the surrogate's fastest settings run as a hedge (0 means 10; negative: none)
	HedgeFirst int // of them run with the first batch (0 means 3)
	HedgeEvery int // evaluations between the others (0 means 6)
	// HedgeSpread is how far apart the hedge's settings after the first HedgeFirst lie at the
	// least: each is the surrogate's fastest at that distance from those before it, two
	// settings being as far apart as the sum over the parameters of the distance between their
	// values' positions, a parameter's whole range counting 1 (0 means 0.5; negative: the
	// surrogate's fastest settings in order). A surrogate that is right about a region but
	// not about its best setting ranks its next fastest next to its fastest (block sizes a
	// step apart); spread out, the hedge tries its other regions too.
	HedgeSpread float64
	// LinearStall is the evaluations the best run stands before one pick of each generation
	// comes from the pair model, a linear model of ln time on the parameters' values and the
	// pairs of small parameters' values (0 means 20 with a Surrogate, never without one;
	// negative: never): without a prior it costs more runs than it saves (docs/performance.md).
	LinearStall int
	Genetic     Genetic
}

// Name implements Method.
func (*Pipeline) Name() string { return "pipeline" }

func (m *Pipeline) withDefaults() Pipeline {
	c := *m
	setDefault(&c.Variants, 2)
	setDefault(&c.First, 10)
	setDefault(&c.Pick, 4)
	setDefault(&c.Keep, 256)
	setDefault(&c.Batch, 2)
	setDefault(&c.Pool, 1<<15)
	setDefault(&c.Screen, 8192)
	setDefault(&c.Cut, 0.5)
	setDefault(&c.Hedge, 10)
	setDefault(&c.HedgeFirst, 3)
	setDefault(&c.HedgeEvery, 6)
	setDefault(&c.HedgeSpread, 0.5)
	if c.LinearStall == 0 && c.Surrogate == nil {
		c.LinearStall = -1
	}
	setDefault(&c.LinearStall, 20)
	c.Genetic = c.Genetic.withDefaults()
	return c
}

// Search implements Method.
func (m *Pipeline) Search(ctx context.Context, r *Run) error {
	c := m.withDefaults()
	if c.Cut < 0 || c.Cut >= 1 || c.Variants < 0 || c.First < 0 || c.Keep < 0 || c.Batch < 0 || c.Pick < 0 || c.Pool < 0 || c.Screen < 0 || c.HedgeFirst < 0 || c.HedgeEvery < 0 {
		return errors.New("pipeline: the cut ratio must lie in [0, 1) and counts must not be negative")
	}
	nv := min(c.Variants, len(r.p.Variants))
	s := newThompsonPool(r, nv, c.Pool, c.Screen, defaultEnsemble, 1, rand.New(rand.NewPCG(r.Seed(), 0x9195)))
	if c.LinearStall >= 0 {
		s.lin, s.linStall = newPairLinear(r.p.Variants[:nv]), c.LinearStall
	}
	prune := &IterML{Model: Trees, Pick: c.Pick, CutRatio: c.Cut, Pool: c.Pool}
	var kept []Candidate
	var h *hedge
	var pt *priorTimes
	var err error
	if c.Surrogate != nil {
		pt = newPriorTimes(ctx, r, c.Surrogate)
		s.enc.prior = pt.feature
		if kept, err = c.pruneOnSurrogate(ctx, r, prune, nv); err == nil {
			if h, err = newHedge(r, pt, nv, c); err == nil {
				s.hidden = h.hidden
				// The first real runs: the hedge's first, and the settings the pruning ranks fastest.
				first := append(h.take(r, c.HedgeFirst), kept[:min(c.First, len(kept))]...)
				_, err = r.Evaluate(ctx, first)
				h.next = r.Evaluations() + h.every
			}
		}
	} else if err = randomFrom(ctx, r, nv, c.First); err == nil {
		kept, err = pruneSpace(ctx, r, prune, nv, c.Keep)
	}
	if err != nil {
		return err
	}
	if err := s.fill(); err != nil {
		return err
	}
	sc := &pipelineScreen{s: s, h: h, batch: c.Batch}
	for {
		if pt != nil && pt.err != nil {
			return pt.err // a refilled pool's settings asked the prior
		}
		best, ok := s.best()
		if !ok {
			// Nothing has run successfully: no incumbent to breed from, so sample on.
			if err := randomFrom(ctx, r, nv, c.Batch); err != nil {
				return err
			}
		} else if err := c.evolve(ctx, sc, best, kept); err != nil {
			return err
		}
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
		// The search settled: run what the model likes best now, and breed again over the
		// space it prunes to.
		if _, err := r.Evaluate(ctx, sc.pick(nil)); err != nil {
			return err
		}
		kept = s.topPredicted(c.Keep)
	}
}

// hedge is the Pipeline's bet on its surrogate's fastest settings: they run beside the search,
// which does not learn from them.
type hedge struct {
	left   []Candidate     // the surrogate's fastest settings not run yet, fastest first
	every  int             // evaluations between two of them
	next   int             // evaluations after which the next one is due
	hidden map[string]bool // variant keys of the settings the hedge ran
}

// newHedge ranks the pool of the first nv variants by the prior and keeps the c.Hedge fastest.
func newHedge(r *Run, pt *priorTimes, nv int, c Pipeline) (*hedge, error) {
	h := &hedge{every: c.HedgeEvery, hidden: map[string]bool{}}
	if c.Hedge < 0 {
		return h, nil
	}
	pool, err := poolOf(r, nv, c.Pool)
	if err != nil {
		return nil, err
	}
	if c.HedgeSpread < 0 {
		h.left = pt.fastest(pool, c.Hedge)
		return h, pt.err
	}
	ranked := pt.fastest(pool, len(pool))
	for len(ranked) > 0 && math.IsInf(pt.time(ranked[len(ranked)-1]), 1) {
		ranked = ranked[:len(ranked)-1] // settings the prior has no time for
	}
	h.left = spreadOut(r.p.Variants[:nv], ranked, c.HedgeFirst, c.Hedge, c.HedgeSpread)
	return h, pt.err
}

// spreadOut keeps the first `first` of ranked, then, in ranked's order, each setting at a
// distance of at least least from every one kept, until it keeps n. Two settings of a variant
// are as far apart as the sum over its parameters of the distance between their values'
// positions, a parameter's whole range counting 1; settings of two variants are infinitely far
// apart.
func spreadOut(vs []Variant, ranked []Candidate, first, n int, least float64) []Candidate {
	type param struct {
		name string
		pos  map[int]float64 // a value's position, 0 for the first, 1 for the last
	}
	params := make([][]param, len(vs))
	for v, x := range vs {
		for _, p := range x.Space.Params() {
			if len(p.Values) < 2 {
				continue
			}
			q := param{name: p.Name, pos: map[int]float64{}}
			for i, val := range p.Values {
				q.pos[val] = float64(i) / float64(len(p.Values)-1)
			}
			params[v] = append(params[v], q)
		}
	}
	far := func(a Candidate, kept []Candidate) bool {
		for _, b := range kept {
			if a.Variant != b.Variant {
				continue
			}
			d := 0.0
			for _, p := range params[a.Variant] {
				d += math.Abs(p.pos[a.Setting[p.name]] - p.pos[b.Setting[p.name]])
			}
			if d < least {
				return false
			}
		}
		return true
	}
	kept := slices.Clone(ranked[:max(0, min(first, n, len(ranked)))])
	for _, c := range ranked[len(kept):] {
		if len(kept) >= n {
			break
		}
		if far(c, kept) {
			kept = append(kept, c)
		}
	}
	return kept
}

// take returns up to n of the hedge's settings that have not run, marking them as the hedge's.
func (h *hedge) take(r *Run, n int) []Candidate {
	var out []Candidate
	for len(h.left) > 0 && len(out) < n {
		c := h.left[0]
		h.left = h.left[1:]
		if _, ok := r.Lookup(c); ok {
			continue // the search ran it first and learnt from it
		}
		h.hidden[string(r.variantKey(c))] = true
		out = append(out, c)
	}
	return out
}

// due returns the hedge's next setting, to run first in the batch being formed, when it is
// due; else nothing.
func (h *hedge) due(r *Run) []Candidate {
	if h == nil || r.Evaluations() < h.next {
		return nil
	}
	out := h.take(r, 1)
	h.next = r.Evaluations() + len(out) + h.every
	return out
}

// pipelineScreen is the Pipeline's screen of a generation: the hedge's setting when one is
// due, and the Batch settings Thompson sampling picks among the children and the pool.
type pipelineScreen struct {
	s     *thompsonPool
	h     *hedge
	batch int
}

func (p *pipelineScreen) pick(kids []Candidate) []Candidate {
	return append(p.h.due(p.s.r), p.s.thompson(kids, p.batch)...)
}

func (p *pipelineScreen) best() (Outcome, bool) { return p.s.best() }

// evolve runs the screened genetic search over the kept settings of the best's variant.
func (c *Pipeline) evolve(ctx context.Context, sc *pipelineScreen, best Outcome, kept []Candidate) error {
	s := sc.s
	r, v := s.r, best.Variant
	sp := r.p.Variants[v].Space
	groups := groupParams(sp.Names(), pairCVs(sp, best.Setting, s.surrogate().timeOf(r, v)))
	settings := []smart.Setting{best.Setting}
	for _, k := range kept {
		if k.Variant == v {
			settings = append(settings, k.Setting)
		}
	}
	// The best settings run so far join the genes' values, so the search breeds from them too.
	for _, o := range bestOutcomes(s.learnt(), v, c.Genetic.SubPopulations*c.Genetic.Size) {
		settings = append(settings, o.Setting)
	}
	g := newGenome(v, groups, settings)
	base, _ := g.genes(best.Setting)
	active := make([]bool, len(groups))
	for k := range active {
		active[k] = true
	}
	return evolve(ctx, r, g, c.Genetic, active, base, sc, s.rng.Uint64())
}

// pruneOnSurrogate runs IterML on the surrogate evaluator, free of real runs, and returns the
// settings it keeps, fastest first by the surrogate: the best it evaluated, then those it
// predicts.
func (c *Pipeline) pruneOnSurrogate(ctx context.Context, r *Run, prune *IterML, nv int) ([]Candidate, error) {
	p := *r.p
	p.Evaluator, p.Progress = c.Surrogate, nil
	sub := newRun(&p, Budget{}, r.Seed())
	rest, err := pruneSpace(ctx, sub, prune, nv, c.Keep)
	if err != nil {
		return nil, err
	}
	var measured []Outcome
	for v := range nv {
		measured = append(measured, bestOutcomes(sub.History(), v, c.Keep/2)...)
	}
	sort.SliceStable(measured, func(i, j int) bool { return measured[i].Value < measured[j].Value })
	var out []Candidate
	for _, o := range measured {
		out = append(out, o.Candidate)
	}
	out = append(out, rest...)
	if len(out) == 0 {
		return poolOf(r, nv, c.Keep)
	}
	return out, nil
}

// bestOutcomes returns up to n of the fastest successful evaluations of variant v in hist.
func bestOutcomes(hist []Outcome, v, n int) []Outcome {
	var ok []Outcome
	for _, o := range hist {
		if o.OK() && o.Variant == v {
			ok = append(ok, o)
		}
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].Value < ok[j].Value })
	return ok[:min(n, len(ok))]
}
