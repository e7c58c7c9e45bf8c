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
// re-indexed genes over the pruned space, all genes evolving at once, each generation screened
// by a surrogate refitted to every real run so far. Thompson sampling over the surrogate's
// trees picks the Batch settings a generation runs, among the children and the settings of
// the whole space not run yet: the children search around the population, the rest keeps a
// setting the pruning dropped within reach when the model learns better. When the genetic
// search settles it starts again from a space pruned by the current model, until the budget
// is spent or every setting has run. With a Surrogate, once the best run has stood for
// LinearStall evaluations, one pick of each generation is a Thompson draw from a Bayesian
// linear model of the runs instead (pairLinear: the parameters' values and the pairs of small
// parameters' values): the trees cannot predict a combination of flags and tiles faster than
// its runs so far, and a search whose runs of the right combination all had the wrong tile
// stays behind a worse corner for hundreds of runs; effects added up from other runs reach it.
//
// With a Surrogate its time is also a feature of the trees, which learn where the real runs
// follow it, and Hedge of its fastest settings run as a hedge: HedgeFirst of them with the
// first batch, the others one every HedgeEvery evaluations, fastest first, each of those at
// least HedgeSpread from the ones before it. Where the surrogate is right at its top (another
// GPU's measurements of the same kernel often are) the hedge finds the optimum in a few runs;
// where it is right about a region, the spread hedge tries the region's parts (on the AMD
// dedispersions the prior's ten fastest are block sizes a step apart, none within 5% of the
// optimum). Where it is wrong there, its fastest settings tend to share one
// corner of the space (on convolution A100 all run at 1.5-2x the optimum), and a search that
// learnt from them would breed and sample in that corner for hundreds of runs: so the trees
// never learn from the hedge's runs and the genetic search never breeds from them (a child
// that happens to be one gets its time from the run, as any setting run before does).
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
	// negative: never). Without a prior it cost convolution W6600 and A4000 more than it
	// gained convolution A100 (bench/tuning-variants.md).
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
	prune := &IterML{Model: Trees, Pick: c.Pick, CutRatio: c.Cut, Pool: c.Pool, variants: nv}
	var kept []Candidate
	var h *hedge
	var pt *priorTimes
	var err error
	if c.Surrogate != nil {
		pt = &priorTimes{ctx: ctx, r: r, prior: c.Surrogate, memo: map[string]float64{}}
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
		kept, err = prune.prune(ctx, r, c.Keep)
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

// thompsonPool is what a search that picks its runs by Thompson sampling keeps between picks (the
// genetic stage of a Pipeline, Bayes): the settings not run yet (a pool of them in a larger
// space), encoded once, and the surrogate, refitted when real runs have been added.
type thompsonPool struct {
	r        *Run
	nv       int
	pool     int // settings drawn into the pool of a larger space
	size     int // settings not run yet that one pick ranks, drawn from a larger pool
	params   ensembleParams
	cap      float64 // quantile of the targets above which the surrogate sees them as equal
	enc      *encoder
	rng      *rand.Rand
	rest     []Candidate
	ids      []uint64 // the index of each of rest in its variant's space
	rows     [][]float64
	cols     [][]float64     // the rows' columns, then those of sample's extra candidates
	index    map[poolKey]int // variant and index -> position in rest, to drop what has run
	synced   int             // evaluations already marked in rest
	dead     int             // settings of rest marked as run (their rows are nil)
	sur      *surrogate
	fittedAt int             // evaluations the surrogate was fitted on
	hidden   map[string]bool // variant keys of evaluations the surrogate does not learn from
	kept     []Outcome       // the learnt evaluations among the first seen of the history
	seen     int
	bestKept Outcome // the fastest successful one of kept, when haveBest
	haveBest bool
	cands    []Candidate
	crows    [][]float64 // buffers of sample
	cat      []int
	bufs     thompsonBufs // those of thompsonRows
	pos      [][]uint16   // the pair model's positions of rest, when it has one
	cpos     [][]uint16   // those of sample's candidates
	hpos     [][]uint16   // those of the runs, by evaluation
	lin      *pairLinear  // when set, one pick of a stalled search comes from it
	linStall int
}

func newThompsonPool(r *Run, nv, pool, size int, p ensembleParams, cap float64, rng *rand.Rand) *thompsonPool {
	return &thompsonPool{r: r, nv: nv, pool: pool, size: size, params: p, cap: cap,
		enc: newEncoder(r.p.Variants[:nv]), rng: rng, fittedAt: -1}
}

// fill draws the pool of settings not run yet, in random order: a pick then ranks a window of
// it at a random offset.
func (s *thompsonPool) fill() error {
	var err error
	// A pool's settings are built when picked, unless the prior or the pair model reads them all.
	if s.rest, s.ids, err = drawPool(s.r, s.nv, s.pool, s.enc.prior != nil || s.lin != nil); err != nil {
		return err
	}
	s.rng.Shuffle(len(s.rest), func(i, j int) {
		s.rest[i], s.rest[j] = s.rest[j], s.rest[i]
		s.ids[i], s.ids[j] = s.ids[j], s.ids[i]
	})
	s.rows, s.pos = s.enc.rows(s.rest, s.ids), nil
	s.cols = columns(s.rows, s.enc.width())
	s.index = make(map[poolKey]int, len(s.rest))
	s.reindex()
	s.synced, s.dead = s.r.Evaluations(), 0
	return nil
}

// compact marks the settings that have run since the last call (a lookup per new
// evaluation) and drops the marked ones once they are a quarter of the pool.
func (s *thompsonPool) compact() {
	hist := s.r.History()
	for n := s.synced; n < len(hist); n++ {
		v := hist[n].Variant
		if v >= s.nv {
			continue // a variant outside the pool
		}
		if i, ok := s.index[poolKey{v, s.r.at[n]}]; ok && s.rows[i] != nil {
			s.rows[i] = nil // the mark of a setting that has run
			s.dead++
		}
	}
	s.synced = len(hist)
	if s.dead*4 < len(s.rest) {
		return
	}
	rest, ids, rows, pos := s.rest[:0], s.ids[:0], s.rows[:0], s.pos[:0]
	for i, c := range s.rest {
		if s.rows[i] != nil {
			rest, ids, rows = append(rest, c), append(ids, s.ids[i]), append(rows, s.rows[i])
			if s.pos != nil {
				pos = append(pos, s.pos[i])
			}
		}
	}
	s.rest, s.ids, s.rows, s.pos, s.dead = rest, ids, rows, pos, 0
	for f, col := range s.cols {
		s.cols[f] = col[:0]
		for _, row := range s.rows {
			s.cols[f] = append(s.cols[f], row[f])
		}
	}
	clear(s.index)
	s.reindex()
}

// poolKey names a setting of a pool: its variant and its index in the variant's space.
type poolKey struct {
	variant int
	index   uint64
}

// reindex maps each setting of the pool to its position.
func (s *thompsonPool) reindex() {
	for i, c := range s.rest {
		s.index[poolKey{c.Variant, s.ids[i]}] = i
	}
}

// left is the number of settings of the pool not run yet.
func (s *thompsonPool) left() int { return len(s.rest) - s.dead }

// surrogate returns the model of the real runs, refitted once they have grown by a sixteenth
// since the last fit (after every generation early on): the fits then cost a logarithmic
// number of passes over the data, not one per generation.
func (s *thompsonPool) surrogate() *surrogate {
	if n := s.r.Evaluations(); s.sur == nil || n-s.fittedAt >= max(1, s.fittedAt/16) {
		s.sur = fitSurrogate(s.learnt(), s.enc, s.params, s.cap, s.rng)
		s.fittedAt = s.r.Evaluations()
	}
	return s.sur
}

// learnt is the evaluations the search learns from: all of them but the hidden ones. It is
// kept as the history grows (a setting is hidden before it runs, never after), so asking
// costs nothing once per generation.
func (s *thompsonPool) learnt() []Outcome {
	h := s.r.History()
	if len(s.hidden) == 0 {
		return h
	}
	for _, o := range h[s.seen:] {
		if !s.hidden[string(s.r.variantKey(o.Candidate))] {
			s.kept = append(s.kept, o)
			if o.OK() && (!s.haveBest || o.Value < s.bestKept.Value) {
				s.bestKept, s.haveBest = o, true
			}
		}
	}
	s.seen = len(h)
	return s.kept
}

// best is the fastest successful evaluation the search learns from.
func (s *thompsonPool) best() (Outcome, bool) {
	if len(s.hidden) == 0 {
		return s.r.Best()
	}
	s.learnt()
	return s.bestKept, s.haveBest
}

// thompson picks k settings among extra and the settings not run yet (at most Screen of them,
// drawn at random from a larger pool), by Thompson sampling: over the surrogate's trees, and
// for one of them over the pair model's posterior once the search has stalled.
func (s *thompsonPool) thompson(extra []Candidate, k int) []Candidate {
	s.compact()
	var lf *pairFit
	if s.lin != nil && k > 0 && s.stalled() >= s.linStall {
		lf = s.pairFit()
	}
	cands, sc := s.sample(extra, lf != nil)
	kt := k
	if lf != nil {
		kt--
	}
	picks := s.surrogate().thompsonRows(sc, kt, s.rng, &s.bufs)
	out := make([]Candidate, len(picks), k)
	for i, p := range picks {
		out[i] = s.settled(cands[p], sc.at[p])
	}
	if lf != nil {
		skip := make(map[int]bool, len(picks))
		for _, p := range picks {
			skip[p] = true
		}
		if j := lf.fastest(cands, s.cpos, lf.draw(s.rng), skip); j >= 0 {
			out = append(out, cands[j])
		}
	}
	return out
}

// stalled is the number of evaluations since the best learnt run.
func (s *thompsonPool) stalled() int {
	b, ok := s.best()
	if !ok {
		return s.r.Evaluations()
	}
	return s.r.Evaluations() - b.N
}

// minPairRuns is the successful runs the pair model waits for: with fewer its posterior is
// the ridge's prior, a random pick.
const minPairRuns = 10

// pairCap is the quantile of the pair model's targets above which they are lowered to it:
// a linear fit would otherwise spend its weights on the slowest settings.
const pairCap = 0.9

// pairFit fits the pair model to the learnt runs; nil before minPairRuns have succeeded.
func (s *thompsonPool) pairFit() *pairFit {
	hist := s.learnt()
	ok := 0
	for _, o := range hist {
		if o.OK() {
			ok++
		}
	}
	if ok < minPairRuns {
		return nil
	}
	y := lnTargets(hist)
	q := quantile(y, pairCap)
	vs, pos := make([]int, len(hist)), make([][]uint16, len(hist))
	for i, o := range hist {
		for len(s.hpos) < o.N {
			// Positions of the runs, by evaluation, computed once.
			c := s.r.History()[len(s.hpos)].Candidate
			s.hpos = append(s.hpos, s.lin.positions(c, nil))
		}
		y[i] = min(y[i], q)
		vs[i], pos[i] = o.Variant, s.hpos[o.N-1]
	}
	return s.lin.fit(vs, pos, y)
}

// sample returns extra and the settings of the pool not run yet, at most size of them (a
// window of the shuffled pool at a random offset), with their rows and columns (extra's after
// the pool's); with positions, their pair model's positions go to cpos. The slices are reused
// by the next call.
func (s *thompsonPool) sample(extra []Candidate, positions bool) ([]Candidate, screenRows) {
	if positions && s.pos == nil {
		// Computed for the whole pool at its first pair pick: most pools never have one.
		s.pos = s.lin.positionsOf(s.rest)
	}
	cands, rows, at, pos := append(s.cands[:0], extra...), s.crows[:0], s.cat[:0], s.cpos[:0]
	n := len(s.rest)
	for j, c := range extra {
		row := s.enc.row(c)
		rows, at = append(rows, row), append(at, n+j)
		for f := range s.cols {
			s.cols[f] = append(s.cols[f][:n+j], row[f])
		}
		if positions {
			pos = append(pos, s.lin.positions(c, nil))
		}
	}
	start := 0
	if s.left() > s.size {
		start = s.rng.IntN(n)
	}
	for k := 0; k < n && len(rows) < len(extra)+s.size; k++ {
		i := start + k // (start + k) % n without a division per setting
		if i >= n {
			i -= n
		}
		if s.rows[i] != nil {
			cands, rows, at = append(cands, s.rest[i]), append(rows, s.rows[i]), append(at, i)
			if positions {
				pos = append(pos, s.pos[i])
			}
		}
	}
	s.cands, s.crows, s.cat, s.cpos = cands, rows, at, pos
	return cands, screenRows{rows: rows, cols: s.cols, at: at}
}

// topPredicted is the pruned space of the current model: the n settings not run yet (of a
// sample of Screen in a larger pool) that it predicts fastest.
func (s *thompsonPool) topPredicted(n int) []Candidate {
	s.compact()
	cands, sc := s.sample(nil, false)
	rows := sc.rows
	sur := s.surrogate()
	if sur.e == nil || len(cands) <= n {
		out := make([]Candidate, len(cands))
		for i, c := range cands {
			out[i] = s.settled(c, sc.at[i])
		}
		return out
	}
	mean, _ := sur.e.predict(rows)
	idx := argsort(mean)
	out := make([]Candidate, n)
	for i := range out {
		out[i] = s.settled(cands[idx[i]], sc.at[idx[i]])
	}
	return out
}

// settled is c, at position p of the screen, with its setting: built from its index where the
// pool was drawn without settings.
func (s *thompsonPool) settled(c Candidate, p int) Candidate {
	if c.Setting != nil {
		return c
	}
	set, err := s.r.p.Variants[c.Variant].Space.At64(s.ids[p])
	if err != nil {
		return c // cannot happen (the pool's own index); the run would refuse it as invalid
	}
	s.rest[p].Setting = set
	return Candidate{Variant: c.Variant, Setting: set}
}

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
	rest, err := prune.prune(ctx, sub, c.Keep)
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

// randomFrom evaluates n settings drawn at random from the first nv variants.
func randomFrom(ctx context.Context, r *Run, nv, n int) error {
	cs, err := poolOf(r, nv, n)
	if err != nil || len(cs) == 0 {
		return err
	}
	_, err = r.Evaluate(ctx, cs)
	return err
}
