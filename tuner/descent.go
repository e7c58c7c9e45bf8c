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
// fastest where it is faster, until no start moves or Rounds rounds are done.
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
	rng := cmp.Or(m.Rand, r.Rand())
	views := make([]*space.Lazy, len(r.p.Variants))
	seen := make([]map[string]bool, len(views))
	for i, v := range r.p.Variants {
		views[i], seen[i] = v.lazy(), map[string]bool{}
	}
	var key []byte
	// fresh reports whether p is proposed for the first time, and marks it proposed.
	fresh := func(p point) bool {
		key = key[:0]
		for _, x := range p.pos {
			key = binary.AppendUvarint(key, uint64(x))
		}
		if seen[p.variant][string(key)] {
			return false
		}
		seen[p.variant][string(key)] = true
		return true
	}
	var first []point
	for _, c := range m.Start {
		if c.Variant < 0 || c.Variant >= len(views) {
			continue
		}
		sp := views[c.Variant]
		if v, ok := sp.Positions(c.Setting); ok && sp.Valid(v) && fresh(point{c.Variant, v, 0}) {
			first = append(first, point{c.Variant, v, 0})
		}
	}
	// A draw can dead-end (no value of a parameter passes its checks) or repeat: give up after
	// four tries per sample.
	for tries := 0; len(first) < samples+len(m.Start) && tries < 4*samples; tries++ {
		if tries%4096 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		k := tries % len(views)
		if v, ok := views[k].Draw(rng); ok && fresh(point{k, v, 0}) {
			first = append(first, point{k, v, 0})
		}
	}
	if len(first) == 0 {
		return nil // no valid setting found
	}
	if err := evaluatePoints(ctx, r, views, first); err != nil {
		return err
	}
	best := slices.Clone(first)
	sort.SliceStable(best, func(i, j int) bool { return best[i].value < best[j].value })
	cur := best[:min(starts, len(best))]
	for range rounds {
		var next []point
		var from []int // the start whose neighbour each of next is
		for i, c := range cur {
			for _, w := range views[c.variant].Neighbours(c.pos) {
				if p := (point{c.variant, w, 0}); fresh(p) {
					next = append(next, p)
					from = append(from, i)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		if err := evaluatePoints(ctx, r, views, next); err != nil {
			return err
		}
		moved := false
		for j, p := range next {
			if i := from[j]; p.value < cur[i].value {
				cur[i], moved = p, true
			}
		}
		if !moved {
			break
		}
	}
	return nil
}

// evaluatePoints evaluates ps in one batch and sets their values. Their settings are new maps,
// drawn or walked by the lazy views, which the run keeps.
func evaluatePoints(ctx context.Context, r *Run, views []*space.Lazy, ps []point) error {
	cands := make([]Candidate, len(ps))
	for i, p := range ps {
		cands[i] = Candidate{Variant: p.variant, Setting: views[p.variant].Setting(p.pos)}
	}
	vs, err := r.evaluateTrusted(ctx, cands)
	for i, v := range vs {
		ps[i].value = v
	}
	return err
}
