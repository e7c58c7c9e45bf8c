package predict

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"smart"
	"smart/tuner/space"
)

// settingSpace is a stencil's setting space under one OC on one GPU, kept as its parameters and
// constraints (space.StencilParams) without generating the chain of trees: generating a large
// 3-D space takes 0.05-0.5 s, more than a whole cold prediction may take, while drawing valid
// settings parameter by parameter and checking neighbours costs microseconds each.
//
// A setting is a vector of value positions, one per parameter in definition order. Every
// constraint is checked where space.Space.Check checks it, at the last parameter it reads, so a
// setting is valid here exactly when Check accepts it. Monotone constraints are also checked
// early, with their unbound parameters at their smallest values, as the generator does, which
// prunes values that cannot lead to a valid setting.
type settingSpace struct {
	params []space.Param
	index  map[string]int
	checks [][]check // checks[i]: what is checked when parameter i is bound
	reads  int       // the most parameters a constraint reads
}

type check struct {
	c      space.Constraint
	pos    []int  // positions of the parameters read
	lowest []bool // whether a read parameter is unbound here and taken at its smallest value
}

func newSettingSpace(st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*settingSpace, error) {
	params, err := space.StencilParams(st, oc, gpu)
	if err != nil {
		return nil, err
	}
	s := &settingSpace{params: params, index: map[string]int{}, checks: make([][]check, len(params))}
	for i, p := range params {
		s.index[p.Name] = i
	}
	for i, p := range params {
		for _, c := range p.Constraints {
			pos := make([]int, len(c.Reads))
			for j, r := range c.Reads {
				k, ok := s.index[r]
				if !ok {
					return nil, fmt.Errorf("setting space of %s under %s: constraint %q reads unknown parameter %s", st.Name, oc, c.Name, r)
				}
				pos[j] = k
			}
			s.reads = max(s.reads, len(pos))
			s.checks[i] = append(s.checks[i], check{c: c, pos: pos, lowest: make([]bool, len(pos))})
			// Check it early where every read parameter still unbound is monotone.
			for early := i - 1; early >= 0; early-- {
				lowest := make([]bool, len(pos))
				ok := true
				for j, k := range pos {
					if k > early {
						lowest[j] = true
						ok = ok && slices.Contains(c.Monotone, c.Reads[j])
					}
				}
				if !ok || !slices.Contains(pos, early) {
					continue
				}
				s.checks[early] = append(s.checks[early], check{c: c, pos: pos, lowest: lowest})
			}
		}
	}
	return s, nil
}

// ok reports whether the value positions v[0..l] satisfy the checks of level l.
func (s *settingSpace) ok(v []int, l int, buf []int) bool {
	for _, ch := range s.checks[l] {
		a := buf[:len(ch.pos)]
		for j, k := range ch.pos {
			if ch.lowest[j] {
				a[j] = s.params[k].Values[0]
			} else {
				a[j] = s.params[k].Values[v[k]]
			}
		}
		if !ch.c.Fn(a) {
			return false
		}
	}
	return true
}

// valid reports whether every parameter's constraints hold.
func (s *settingSpace) valid(v []int) bool {
	buf := make([]int, 0, s.reads)
	for l := range s.params {
		for _, ch := range s.checks[l] {
			if slices.Contains(ch.lowest, true) {
				continue // early checks are implied by the full ones
			}
			a := buf[:0]
			for _, k := range ch.pos {
				a = append(a, s.params[k].Values[v[k]])
			}
			if !ch.c.Fn(a) {
				return false
			}
		}
	}
	return true
}

// draw binds the parameters in order, each to a value chosen uniformly among those that pass
// the checks of its level, and reports false at a dead end (no value passes). The draws are
// valid settings but not uniform over the space (a value with few completions is as likely as
// one with many): what a search needs, which then improves on the best of them.
func (s *settingSpace) draw(rng *rand.Rand) ([]int, bool) {
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

// setting turns value positions into a smart.Setting.
func (s *settingSpace) setting(v []int) smart.Setting {
	out := make(smart.Setting, len(v))
	for i, p := range s.params {
		out[p.Name] = p.Values[v[i]]
	}
	return out
}

// positions turns a setting into value positions; false when a parameter is missing or has a
// value the space does not list.
func (s *settingSpace) positions(set smart.Setting) ([]int, bool) {
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

// neighbours returns the valid settings one step away from v: one parameter moved to the next
// smaller or larger of its values.
func (s *settingSpace) neighbours(v []int) [][]int {
	var out [][]int
	for i, p := range s.params {
		for _, d := range []int{-1, 1} {
			x := v[i] + d
			if x < 0 || x >= len(p.Values) {
				continue
			}
			w := slices.Clone(v)
			w[i] = x
			if s.valid(w) {
				out = append(out, w)
			}
		}
	}
	return out
}
