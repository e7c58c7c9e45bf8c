package tuner

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"smart/space"
)

// Descent is a multi-start steepest descent (Kernel Tuner's greedy_mls, started from the best
// of a random sample): the Start settings and Samples valid settings drawn at random are
// evaluated; then from the Starts best of them, round by round, every new neighbour of each
// start (one parameter moved one value up or down) is evaluated and the start moves to the
// fastest where it is faster, until no start moves or Rounds rounds are done. With Restart it
// then draws Samples new settings and descends again, until the budget is spent or the draws
// find nothing new.
//
// It draws and walks a variant's lazy view (space.Lazy), so it also searches variants that
// the problem gives without a generated Space: predict searches a runtime model this way,
// scoring thousands of settings in less time than generating the spaces would take.
type Descent struct {
	// Samples is the number of settings drawn at random, spread over the variants in turn;
	// 0 means 64 and a negative number none (a descent from Start alone).
	Samples int
	// Starts is the number of best settings descended from; 0 means 4.
	Starts int
	// Rounds is the most rounds of descent; 0 means no limit (until no start moves) and a
	// negative number none (the draws alone).
	Rounds int
	// Restart draws again and descends anew once the starts stop, until the budget is spent
	// or the draws find nothing new; without it the search ends there.
	Restart bool
	// Start are settings evaluated first, where valid (a previous search's best); invalid ones
	// are left out.
	Start []Candidate
	// Rand is the source of the draws; nil means the run's (Run.Rand). A caller that derives
	// its streams itself passes its own; the method then must not be used by two searches at
	// once.
	Rand *rand.Rand
}

// Name implements Method.
func (*Descent) Name() string { return "descent" }

// searchesLazy marks Descent as searching variants given only by their Lazy view.
func (*Descent) searchesLazy() {}

// point is a setting of a variant as value positions, with its objective once evaluated.
type point struct {
	variant int
	pos     []int
	value   float64
}

// Search implements Method.
func (m *Descent) Search(ctx context.Context, r *Run) error {
	samples, starts, rounds := m.Samples, cmp.Or(m.Starts, 4), m.Rounds
	switch {
	case samples == 0:
		samples = 64
	case samples < 0:
		samples = 0
	}
	switch {
	case rounds == 0:
		rounds = math.MaxInt
	case rounds < 0:
		rounds = 0
	}
	d := &descent{r: r, rng: cmp.Or(m.Rand, r.Rand())}
	for _, v := range r.p.Variants {
		d.views, d.seen = append(d.views, v.lazy()), append(d.seen, map[string]bool{})
	}
	var first []point
	for _, c := range m.Start {
		if c.Variant < 0 || c.Variant >= len(d.views) {
			continue
		}
		sp := d.views[c.Variant]
		if v, ok := sp.Positions(c.Setting); ok && sp.Valid(v) && d.fresh(point{c.Variant, v, 0}) {
			first = append(first, point{c.Variant, v, 0})
		}
	}
	for want := samples + len(m.Start); ; want = samples {
		var err error
		if first, err = d.draw(ctx, first, want, 4*samples); err != nil {
			return err
		}
		if len(first) == 0 {
			return nil // no valid setting found, or none new
		}
		if err := d.descend(ctx, first, starts, rounds); err != nil || !m.Restart {
			return err
		}
		first = nil
	}
}

// descent is a Descent's search in progress.
type descent struct {
	r     *Run
	rng   *rand.Rand
	views []*space.Lazy     // per variant
	seen  []map[string]bool // per variant, the settings proposed, by their positions
	key   []byte            // fresh's buffer
}

// fresh reports whether p is proposed for the first time, and marks it proposed.
func (d *descent) fresh(p point) bool {
	d.key = d.key[:0]
	for _, x := range p.pos {
		d.key = binary.AppendUvarint(d.key, uint64(x))
	}
	if d.seen[p.variant][string(d.key)] {
		return false
	}
	d.seen[p.variant][string(d.key)] = true
	return true
}

// draw appends new settings drawn at random, from the variants in turn, to ps until it holds
// want of them or tries draws are spent: a draw can dead-end (no value of a parameter passes
// its checks) or repeat.
func (d *descent) draw(ctx context.Context, ps []point, want, tries int) ([]point, error) {
	for t := 0; len(ps) < want && t < tries; t++ {
		if t%4096 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		k := t % len(d.views)
		if v, ok := d.views[k].Draw(d.rng); ok && d.fresh(point{k, v, 0}) {
			ps = append(ps, point{k, v, 0})
		}
	}
	return ps, nil
}

// descend evaluates first and descends from the starts best of it for at most rounds rounds.
func (d *descent) descend(ctx context.Context, first []point, starts, rounds int) error {
	if err := d.evaluate(ctx, first); err != nil {
		return err
	}
	best := slices.Clone(first)
	sort.SliceStable(best, func(i, j int) bool { return best[i].value < best[j].value })
	cur := best[:min(starts, len(best))]
	for range rounds {
		var next []point
		var from []int // the start whose neighbour each of next is
		for i, c := range cur {
			for _, w := range d.views[c.variant].Neighbours(c.pos) {
				if p := (point{c.variant, w, 0}); d.fresh(p) {
					next = append(next, p)
					from = append(from, i)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		if err := d.evaluate(ctx, next); err != nil {
			return err
		}
		moved := false
		for j, p := range next {
			if i := from[j]; p.value < cur[i].value {
				cur[i], moved = p, true
			}
		}
		if !moved {
			return nil
		}
	}
	return nil
}

// evaluate evaluates ps in one batch and sets their values. Their settings are new maps, drawn
// or walked by the lazy views, which the run keeps.
func (d *descent) evaluate(ctx context.Context, ps []point) error {
	cands := make([]Candidate, len(ps))
	for i, p := range ps {
		cands[i] = Candidate{Variant: p.variant, Setting: d.views[p.variant].Setting(p.pos)}
	}
	vs, err := d.r.evaluateTrusted(ctx, cands)
	for i, v := range vs {
		ps[i].value = v
	}
	return err
}
