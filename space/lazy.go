package space

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"smart"
)

// Lazy is a setting space kept as its parameters and constraints, without generating the chain
// of trees: generating a large 3-D stencil space can take longer than a whole cold smart predict,
// while drawing valid settings parameter by parameter and checking neighbours costs microseconds
// each.
//
// A setting is a vector of value positions, one per parameter in definition order. The
// constraints are checked as New's generator checks them (one group of every parameter): each at
// the level of the last parameter it reads, and a monotone one also early, with its unbound reads
// at their smallest values, which prunes values that cannot lead to a valid setting. So a setting
// is valid here exactly when Space.Check accepts it.
type Lazy struct {
	params []Param
	index  map[string]int // parameter name -> position in params
	g      *group
	reads  int // the most parameters a constraint reads
}

// NewLazy returns the lazy space of params (in definition order, as New takes them).
func NewLazy(params []Param) (*Lazy, error) {
	index := make(map[string]int, len(params))
	for i, p := range params {
		index[p.Name] = i
	}
	for _, p := range params {
		for _, c := range p.Constraints {
			for _, r := range c.Reads {
				if _, ok := index[r]; !ok {
					return nil, fmt.Errorf("constraint %q of %s reads unknown parameter %s", c.Name, p.Name, r)
				}
			}
		}
	}
	return newLazy(params, index), nil
}

// newLazy is NewLazy of parameters whose constraints read only parameters of index.
func newLazy(params []Param, index map[string]int) *Lazy {
	all := make([]int, len(params))
	s := &Lazy{params: params, index: index}
	for i, p := range params {
		all[i] = i
		for _, c := range p.Constraints {
			s.reads = max(s.reads, len(c.Reads))
		}
	}
	s.g = newGroup(params, all, index)
	return s
}

// Lazy returns the space's lazy view: the same settings, drawn and walked without the trees.
func (s *Space) Lazy() *Lazy { return newLazy(s.params, s.index) }

// ok reports whether the value positions v[0..l] satisfy the checks of level l.
func (s *Lazy) ok(v []int, l int, buf []int) bool {
	for _, ch := range s.g.checks[l] {
		a := buf[:len(ch.pos)]
		for j, k := range ch.pos {
			if k <= l {
				a[j] = s.params[k].Values[v[k]]
			} else {
				a[j] = ch.lowest[j]
			}
		}
		if !ch.c.Fn(a) {
			return false
		}
	}
	return true
}

// Valid reports whether every parameter's constraints hold.
func (s *Lazy) Valid(v []int) bool {
	buf := make([]int, s.reads)
	for l := range s.params {
		for _, ch := range s.g.checks[l] {
			if len(ch.pos) > 0 && slices.Max(ch.pos) > l {
				continue // an early check, implied by the full one
			}
			a := buf[:len(ch.pos)]
			for j, k := range ch.pos {
				a[j] = s.params[k].Values[v[k]]
			}
			if !ch.c.Fn(a) {
				return false
			}
		}
	}
	return true
}

// Draw binds the parameters in order, each to a value chosen uniformly among those that pass
// the checks of its level, and reports false at a dead end (no value passes). The draws are
// valid settings but not uniform over the space (a value with few completions is as likely as
// one with many): what a search needs, which then improves on the best of them.
func (s *Lazy) Draw(rng *rand.Rand) ([]int, bool) {
	v := make([]int, len(s.params))
	buf := make([]int, s.reads)
	left := make([]int, 0, 16)
	for l, p := range s.params {
		// Try the values in random order, dropping those that fail: the first that passes is
		// uniform among the passing ones, after one or two checks where most pass.
		left = left[:0]
		for x := range p.Values {
			left = append(left, x)
		}
		found := false
		for len(left) > 0 {
			j := rng.IntN(len(left))
			if v[l] = left[j]; s.ok(v, l, buf) {
				found = true
				break
			}
			left[j] = left[len(left)-1]
			left = left[:len(left)-1]
		}
		if !found {
			return nil, false
		}
	}
	return v, true
}

// Setting turns value positions into a smart.Setting.
func (s *Lazy) Setting(v []int) smart.Setting {
	out := make(smart.Setting, len(v))
	for i, p := range s.params {
		out[p.Name] = p.Values[v[i]]
	}
	return out
}

// Positions turns a setting into value positions; false when a parameter is missing or has a
// value the space does not list.
func (s *Lazy) Positions(set smart.Setting) ([]int, bool) {
	if len(set) != len(s.params) {
		return nil, false
	}
	v := make([]int, len(s.params))
	for i, p := range s.params {
		x, ok := set[p.Name]
		if !ok {
			return nil, false
		}
		if v[i] = slices.Index(p.Values, x); v[i] < 0 {
			return nil, false
		}
	}
	return v, true
}

// Neighbours returns the valid settings one step away from v: one parameter moved to the next
// smaller or larger of its values.
func (s *Lazy) Neighbours(v []int) [][]int {
	var out [][]int
	for i, p := range s.params {
		for _, d := range []int{-1, 1} {
			x := v[i] + d
			if x < 0 || x >= len(p.Values) {
				continue
			}
			w := slices.Clone(v)
			w[i] = x
			if s.Valid(w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// Dims is the number of parameters: the length of a setting's value positions.
func (s *Lazy) Dims() int { return len(s.params) }

// Names returns the parameter names in definition order.
func (s *Lazy) Names() []string { return names(s.params) }

// Check reports why a setting is not a valid setting of the space, as Space.Check does (the
// same *Violation), or nil.
func (s *Lazy) Check(set smart.Setting) error {
	if v, ok := s.Positions(set); ok && s.Valid(v) {
		return nil // the common case, without Check's allocations
	}
	return checkParams(s.params, s.index, set)
}

// LazyForStencil is ForStencil's space of st under oc on gpu, kept lazy.
func LazyForStencil(st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*Lazy, error) {
	params, err := StencilParams(st, oc, gpu)
	if err != nil {
		return nil, err
	}
	l, err := NewLazy(params)
	if err != nil {
		return nil, fmt.Errorf("setting space of %s under %s: %w", st.Name, oc, err)
	}
	return l, nil
}
