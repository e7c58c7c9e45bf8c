package tuner

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
)

// sampler draws candidates uniformly at random from the union of a problem's variants without
// replacement: a Fisher-Yates shuffle of the union's indices kept sparse (only the positions
// swapped are stored), so a draw costs O(1) whatever the size of the space.
type sampler struct {
	vs     []Variant
	counts []uint64 // settings per variant
	total  uint64
	drawn  uint64
	perm   map[uint64]uint64
}

// errHuge is returned for unions of more than 2^64 settings, which this sampler cannot number.
var errHuge = errors.New("the search space has more than 2^64 settings")

func newSampler(vs []Variant) (*sampler, error) {
	s := &sampler{vs: vs, perm: map[uint64]uint64{}}
	sum := new(big.Int)
	for _, v := range vs {
		n, ok := v.Space.Len()
		if !ok {
			return nil, errHuge
		}
		s.counts = append(s.counts, n)
		sum.Add(sum, new(big.Int).SetUint64(n))
	}
	if !sum.IsUint64() {
		return nil, errHuge
	}
	s.total = sum.Uint64()
	return s, nil
}

// left is the number of candidates not drawn yet.
func (s *sampler) left() uint64 { return s.total - s.drawn }

// next draws a candidate not drawn before; false once all are drawn.
func (s *sampler) next(rng *rand.Rand) (Candidate, bool, error) {
	u, ok := s.nextIndex(rng)
	if !ok {
		return Candidate{}, false, nil
	}
	c, err := s.candidate(u)
	return c, err == nil, err
}

// nextIndex draws an index of the union not drawn before; false once all are drawn.
func (s *sampler) nextIndex(rng *rand.Rand) (uint64, bool) {
	if s.drawn >= s.total {
		return 0, false
	}
	i := s.drawn
	j := i + rng.Uint64N(s.total-i)
	vi, vj := s.at(i), s.at(j)
	s.perm[j] = vi
	delete(s.perm, i) // position i is never read again
	s.drawn++
	return vj, true
}

func (s *sampler) at(i uint64) uint64 {
	if v, ok := s.perm[i]; ok {
		return v
	}
	return i
}

// candidate maps an index of the union to its variant and setting.
func (s *sampler) candidate(u uint64) (Candidate, error) {
	v, i, ok := s.locate(u)
	if !ok {
		return Candidate{}, errors.New("index outside the space")
	}
	set, err := s.vs[v].Space.At64(i)
	return Candidate{Variant: v, Setting: set}, err
}

// locate maps an index of the union to its variant and the index in that variant's space.
func (s *sampler) locate(u uint64) (v int, i uint64, ok bool) {
	for v, n := range s.counts {
		if u < n {
			return v, u, true
		}
		u -= n
	}
	return 0, 0, false
}

// all enumerates the union in order, variant by variant.
func all(vs []Variant, yield func(Candidate) bool) {
	for v, x := range vs {
		for set := range x.Space.All() {
			if !yield(Candidate{Variant: v, Setting: set}) {
				return
			}
		}
	}
}

// pool returns the candidates of the union not yet evaluated in r: all of them when the union
// has at most max settings, else max drawn uniformly at random without replacement (so a
// strategy that ranks candidates by a model works on a uniform sample of a huge space).
func pool(r *Run, max int) ([]Candidate, error) { return poolOf(r, len(r.p.Variants), max) }

// poolOf is pool over the first k variants.
func poolOf(r *Run, k, max int) ([]Candidate, error) {
	cs, _, err := drawPool(r, k, max, true)
	return cs, err
}

// drawPool is poolOf with each candidate's index in its variant's space. What has run is left
// out by its index, before its setting is built. Without settings, a candidate drawn from a larger union
// has none (nil) and its index alone says which it is: building tens of thousands of maps of
// which a search runs a few costs more than the rest of drawing them.
func drawPool(r *Run, k, max int, settings bool) ([]Candidate, []uint64, error) {
	vs := r.p.Variants[:k]
	s, err := newSampler(vs)
	if err != nil {
		return nil, nil, err
	}
	n := min(uint64(max), s.total)
	out, ids := make([]Candidate, 0, n), make([]uint64, 0, n)
	if s.total <= uint64(max) {
		var u uint64 // all enumerates the union in index order
		all(vs, func(c Candidate) bool {
			if v, i, _ := s.locate(u); !r.seenAt(v, i) {
				out, ids = append(out, c), append(ids, i)
			}
			u++
			return true
		})
		return out, ids, nil
	}
	s.perm = make(map[uint64]uint64, max) // a draw stores at most one swapped position
	for len(out) < max {
		u, ok := s.nextIndex(r.rng)
		if !ok {
			break
		}
		v, i, _ := s.locate(u)
		if r.seenAt(v, i) {
			continue
		}
		c := Candidate{Variant: v}
		if settings {
			if c.Setting, err = vs[v].Space.At64(i); err != nil {
				return nil, nil, err
			}
		}
		out, ids = append(out, c), append(ids, i)
	}
	return out, ids, nil
}

// drawWeighted draws a candidate uniformly at random from the union, with replacement: a
// variant with probability proportional to its size (in float64, exact enough for the weights),
// then a setting of it.
func drawWeighted(r *Run) (Candidate, error) {
	weights := make([]float64, len(r.p.Variants))
	sum := 0.0
	for i, v := range r.p.Variants {
		weights[i], _ = new(big.Float).SetInt(v.Space.Count()).Float64()
		sum += weights[i]
	}
	u := r.rng.Float64() * sum
	v := 0
	for v < len(weights)-1 && u >= weights[v] {
		u -= weights[v]
		v++
	}
	set, err := r.p.Variants[v].Space.Random(r.rng)
	return Candidate{Variant: v, Setting: set}, err
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
