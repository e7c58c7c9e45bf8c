package space

import (
	"fmt"
	"iter"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"

	"smart"
)

// The index of a setting is mixed-radix over the groups, the first group most significant, and
// within a group the index of its leaf: settings are numbered in enumeration order.

// At returns the setting of index i, 0 <= i < Count().
func (s *Space) At(i *big.Int) (smart.Setting, error) {
	if i.Sign() < 0 || i.Cmp(s.count) >= 0 {
		return nil, fmt.Errorf("index %s is outside the space's %s settings", i, s.count)
	}
	if s.fits64 {
		return s.at64(i.Uint64()), nil
	}
	idx := make([]uint64, len(s.groups))
	q, r := new(big.Int).Set(i), new(big.Int)
	for g := len(s.groups) - 1; g >= 0; g-- {
		q.QuoRem(q, new(big.Int).SetUint64(s.groups[g].n), r)
		idx[g] = r.Uint64()
	}
	return s.setting(idx), nil
}

// At64 is At for spaces whose count fits in a uint64 (see Len).
func (s *Space) At64(i uint64) (smart.Setting, error) {
	if !s.fits64 || i >= s.count64 {
		return s.At(new(big.Int).SetUint64(i))
	}
	return s.at64(i), nil
}

func (s *Space) at64(i uint64) smart.Setting {
	var buf [8]uint64
	return s.setting(s.leaves64(i, buf[:0]))
}

// leaves64 appends to dst the leaf of index i in each group.
func (s *Space) leaves64(i uint64, dst []uint64) []uint64 {
	dst = slices.Grow(dst[:0], len(s.groups))[:len(s.groups)]
	for g := len(s.groups) - 1; g >= 0; g-- {
		n := s.groups[g].n
		dst[g] = i % n
		i /= n
	}
	return dst
}

// Values64 is At64 as values in the order of Names, in dst's memory, without building a map:
// the tuner encodes tens of thousands of drawn settings for its models.
func (s *Space) Values64(i uint64, dst []int) ([]int, error) {
	if !s.fits64 || i >= s.count64 {
		return nil, fmt.Errorf("index %d is outside the space's %s settings", i, s.count)
	}
	var buf [8]uint64
	return s.values(s.leaves64(i, buf[:0]), dst), nil
}

// setting assembles the setting of the given leaf in each group.
func (s *Space) setting(leaf []uint64) smart.Setting {
	var buf [16]int
	out := make(smart.Setting, len(s.params))
	for p, v := range s.values(leaf, buf[:0]) {
		out[s.params[p].Name] = v
	}
	return out
}

// values writes the values of the setting of the given leaf in each group into dst's memory,
// in parameter order.
func (s *Space) values(leaf []uint64, dst []int) []int {
	dst = slices.Grow(dst[:0], len(s.params))[:len(s.params)]
	var buf [32]int32
	for gi, g := range s.groups {
		path := buf[:0]
		if len(g.params) > len(buf) {
			path = make([]int32, 0, len(g.params))
		}
		path = path[:len(g.params)]
		g.path(leaf[gi], path)
		for l, p := range g.params {
			dst[p] = s.params[p].Values[path[l]]
		}
	}
	return dst
}

// Random draws a setting uniformly at random from the valid settings: an index uniform in
// [0, Count()) mapped through the chain of trees, so every valid setting is equally likely.
func (s *Space) Random(r *rand.Rand) (smart.Setting, error) {
	if s.count.Sign() == 0 {
		return nil, ErrEmpty
	}
	if s.fits64 {
		return s.at64(r.Uint64N(s.count64)), nil
	}
	return s.At(randBelow(r, s.count))
}

// Sample draws n distinct settings, every n-subset of the valid settings equally likely
// (Floyd's algorithm over indices), and returns them in index order.
func (s *Space) Sample(r *rand.Rand, n int) ([]smart.Setting, error) {
	if n < 0 || big.NewInt(int64(n)).Cmp(s.count) > 0 {
		return nil, fmt.Errorf("cannot draw %d distinct settings from a space of %s", n, s.count)
	}
	var idx []*big.Int
	if s.fits64 {
		chosen := make(map[uint64]bool, n)
		for j := s.count64 - uint64(n); j < s.count64; j++ {
			t := r.Uint64N(j + 1)
			if chosen[t] {
				t = j
			}
			chosen[t] = true
			idx = append(idx, new(big.Int).SetUint64(t))
		}
	} else {
		// n is tiny next to a count beyond 2^64: redraw the rare repeats.
		chosen := make(map[string]bool, n)
		for len(idx) < n {
			t := randBelow(r, s.count)
			if k := t.String(); !chosen[k] {
				chosen[k] = true
				idx = append(idx, t)
			}
		}
	}
	slices.SortFunc(idx, (*big.Int).Cmp)
	out := make([]smart.Setting, len(idx))
	for i, x := range idx {
		set, err := s.At(x)
		if err != nil {
			return nil, err
		}
		out[i] = set
	}
	return out, nil
}

// randBelow returns a uniform integer in [0, n) by rejection: draw as many random bits as n
// has and retry when the draw is n or more (fewer than half the draws on average).
func randBelow(r *rand.Rand, n *big.Int) *big.Int {
	bits := n.BitLen()
	words := make([]big.Word, (bits+63)/64)
	v := new(big.Int)
	for {
		for i := range words {
			words[i] = big.Word(r.Uint64())
		}
		if extra := len(words)*64 - bits; extra > 0 {
			words[len(words)-1] >>= uint(extra)
		}
		v.SetBits(words)
		if v.Cmp(n) < 0 {
			return v
		}
	}
}

// IndexOf returns the index of a valid setting, the inverse of At. An invalid setting gets
// Check's error.
func (s *Space) IndexOf(set smart.Setting) (*big.Int, error) {
	if err := s.Check(set); err != nil {
		return nil, err
	}
	idx := new(big.Int)
	for gi, g := range s.groups {
		idx.Mul(idx, new(big.Int).SetUint64(g.n))
		idx.Add(idx, new(big.Int).SetUint64(uint64(s.leaf(gi, set))))
	}
	return idx, nil
}

// Index64 is IndexOf where the space numbers its settings in 64 bits (Len's second result),
// without Check's error or big numbers (the tuner asks it of every evaluation); false for an
// invalid setting or a larger space.
func (s *Space) Index64(set smart.Setting) (uint64, bool) {
	if !s.fits64 || len(set) != len(s.params) {
		return 0, false
	}
	var idx uint64
	for gi, g := range s.groups {
		leaf := s.leaf(gi, set)
		if leaf < 0 {
			return 0, false
		}
		idx = idx*g.n + uint64(leaf)
	}
	return idx, true
}

// leaf is the index of set's leaf in group gi (a leaf's node index is its leaf index), or -1
// where set is not a valid setting of the group (a value missing, outside the parameter's, or
// excluded by a constraint: the group's tree holds only valid paths).
func (s *Space) leaf(gi int, set smart.Setting) int {
	g, node := s.groups[gi], 0
	for l, p := range g.params {
		v, ok := set[s.params[p].Name]
		if !ok {
			return -1
		}
		lo, hi := g.children(l, node)
		if node = g.find(l, lo, hi, int32(s.valuePos(p, v))); node < 0 {
			return -1
		}
	}
	return node
}

// valuePos is the position of value v in parameter p's Values, or -1.
func (s *Space) valuePos(p, v int) int {
	for i, x := range s.params[p].Values {
		if x == v {
			return i
		}
	}
	return -1
}

// Point maps a point of the coordinate space (0,1]^L, L = Dims(), to a setting (ATF section 5):
// coordinate i, in chain order (the groups' parameters in Groups order), selects the child of
// the node reached so far by its share, the k-th of n children for k = ceil(x_i * n).
func (s *Space) Point(x []float64) (smart.Setting, error) {
	if len(x) != len(s.params) {
		return nil, fmt.Errorf("a point of this space has %d coordinates, not %d", len(s.params), len(x))
	}
	if s.count.Sign() == 0 {
		return nil, ErrEmpty
	}
	for i, v := range x {
		if !(v > 0 && v <= 1) {
			return nil, fmt.Errorf("coordinate %d is %v; coordinates lie in (0, 1]", i, v)
		}
	}
	out := make(smart.Setting, len(s.params))
	d := 0
	for _, g := range s.groups {
		node := 0
		for l, p := range g.params {
			lo, hi := g.children(l, node)
			k := int(math.Ceil(x[d] * float64(hi-lo)))
			k = min(max(k, 1), hi-lo)
			node = lo + k - 1
			out[s.params[p].Name] = s.params[p].Values[g.lv[l].val[node]]
			d++
		}
	}
	return out, nil
}

// Coordinates returns the centre of the cell of the coordinate space that Point maps to the
// setting: Point(Coordinates(s)) == s for every valid setting s.
func (s *Space) Coordinates(set smart.Setting) ([]float64, error) {
	if err := s.Check(set); err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(s.params))
	for _, g := range s.groups {
		node := 0
		for l, p := range g.params {
			lo, hi := g.children(l, node)
			node = g.find(l, lo, hi, int32(s.valuePos(p, set[s.params[p].Name])))
			out = append(out, (float64(node-lo)+0.5)/float64(hi-lo))
		}
	}
	return out, nil
}

// All enumerates the valid settings in index order. Breaking out of the loop stops it.
func (s *Space) All() iter.Seq[smart.Setting] {
	return func(yield func(smart.Setting) bool) {
		if s.count.Sign() == 0 {
			return
		}
		leaf := make([]uint64, len(s.groups))
		paths := make([][]int32, len(s.groups))
		for gi, g := range s.groups {
			paths[gi] = make([]int32, len(g.params))
			g.path(0, paths[gi])
		}
		for {
			out := make(smart.Setting, len(s.params))
			for gi, g := range s.groups {
				for l, p := range g.params {
					out[s.params[p].Name] = s.params[p].Values[paths[gi][l]]
				}
			}
			if !yield(out) {
				return
			}
			// odometer step, the last group fastest
			gi := len(s.groups) - 1
			for ; gi >= 0; gi-- {
				g := s.groups[gi]
				if leaf[gi]++; leaf[gi] < g.n {
					g.path(leaf[gi], paths[gi])
					break
				}
				leaf[gi] = 0
				g.path(0, paths[gi])
			}
			if gi < 0 {
				return
			}
		}
	}
}
