package tuner

import "math/rand/v2"

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
