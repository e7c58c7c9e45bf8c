package space

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
)

// ErrEmpty is returned when a space with no valid setting is asked for one.
var ErrEmpty = errors.New("the search space has no valid setting")

// Space is a constrained search space stored as a chain of trees (ATF section 4): one tree per
// group of interdependent parameters, the space being the product of the groups. It is
// immutable once built and safe for concurrent use.
type Space struct {
	params []Param
	index  map[string]int // parameter name -> position in params
	groups []*group       // ordered by their first parameter
	count  *big.Int
	// count64 is the count when it fits in a uint64 (fits64), the fast path of every mapping.
	count64 uint64
	fits64  bool
}

// Group is a set of interdependent parameters and the number of valid settings of them alone.
type Group struct {
	Params []string // in definition order
	Count  uint64
}

// New generates the space of the parameters: it groups parameters linked by constraints,
// generates each group's valid values in parallel with every constraint checked as soon as
// the parameters it reads are bound (ATF section 3.2), and chains the groups' trees.
// Constraints may read only their own and earlier parameters. A space may be empty (Count 0)
// when the constraints exclude every combination.
func New(ctx context.Context, params []Param) (*Space, error) {
	if len(params) == 0 {
		return nil, errors.New("a search space needs at least one parameter")
	}
	s := &Space{params: slices.Clone(params), index: make(map[string]int, len(params))}
	for i, p := range params {
		if err := p.validate(s.index); err != nil {
			return nil, err
		}
		s.index[p.Name] = i
	}
	for _, members := range s.partition() {
		s.groups = append(s.groups, newGroup(s.params, members, s.index))
	}
	if err := buildGroups(ctx, s.params, s.groups); err != nil {
		return nil, err
	}
	s.count = big.NewInt(1)
	for _, g := range s.groups {
		s.count.Mul(s.count, new(big.Int).SetUint64(g.n))
	}
	s.fits64 = s.count.IsUint64()
	if s.fits64 {
		s.count64 = s.count.Uint64()
	}
	return s, nil
}

// partition finds the groups of interdependent parameters: union-find over the parameters each
// constraint reads. Groups are ordered by their first parameter, members by definition order.
func (s *Space) partition() [][]int {
	parent := make([]int, len(s.params))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i, p := range s.params {
		for _, c := range p.Constraints {
			for _, r := range c.Reads {
				a, b := find(i), find(s.index[r])
				if a != b {
					parent[max(a, b)] = min(a, b) // the root stays the earliest parameter
				}
			}
		}
	}
	var groups [][]int
	slot := make(map[int]int)
	for i := range s.params {
		root := find(i)
		g, ok := slot[root]
		if !ok {
			g = len(groups)
			slot[root] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// Count is the exact number of valid settings.
func (s *Space) Count() *big.Int { return new(big.Int).Set(s.count) }

// Len returns the number of valid settings and true when it fits in a uint64.
func (s *Space) Len() (uint64, bool) { return s.count64, s.fits64 }

// Dims is the number of levels of the chain of trees, one per parameter: the dimension L of
// the coordinate space that Point maps from.
func (s *Space) Dims() int { return len(s.params) }

// Params returns the parameters in definition order.
func (s *Space) Params() []Param { return slices.Clone(s.params) }

// Names returns the parameter names in definition order.
func (s *Space) Names() []string { return names(s.params) }

func names(params []Param) []string {
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p.Name
	}
	return out
}

// Groups returns the groups of interdependent parameters in chain order.
func (s *Space) Groups() []Group {
	out := make([]Group, len(s.groups))
	for i, g := range s.groups {
		names := make([]string, len(g.params))
		for j, p := range g.params {
			names[j] = s.params[p].Name
		}
		out[i] = Group{Params: names, Count: g.n}
	}
	return out
}

// String summarises the space: its size and groups.
func (s *Space) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s settings in %d groups:", s.count, len(s.groups))
	for _, g := range s.Groups() {
		fmt.Fprintf(&b, " {%s}=%d", strings.Join(g.Params, ","), g.Count)
	}
	return b.String()
}
