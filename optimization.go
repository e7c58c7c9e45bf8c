package smart

import (
	"fmt"
	"slices"
	"strings"
)

// Optimization is one of the stencil optimizations of StencilMART Table I.
type Optimization uint8

// The optimizations, as bits of a Combination.
const (
	ST Optimization = 1 << iota // streaming (2.5-D blocking with concurrent streaming blocks)
	BM                          // block merging
	CM                          // cyclic merging
	RT                          // retiming
	PR                          // prefetching
	TB                          // temporal blocking
)

// optimizations lists every Optimization in the order names are written.
var optimizations = [...]struct {
	opt  Optimization
	name string
}{{ST, "ST"}, {BM, "BM"}, {CM, "CM"}, {RT, "RT"}, {PR, "PR"}, {TB, "TB"}}

func (o Optimization) String() string {
	for _, x := range optimizations {
		if x.opt == o {
			return x.name
		}
	}
	return fmt.Sprintf("Optimization(%d)", uint8(o))
}

// Combination is a set of optimizations, an OC. The zero value is the baseline with none.
type Combination uint8

// BaselineName is how the empty combination is written.
const BaselineName = "BASE"

// Has reports whether the combination includes o.
func (c Combination) Has(o Optimization) bool { return uint8(c)&uint8(o) != 0 }

// With returns the combination with o added.
func (c Combination) With(o Optimization) Combination { return c | Combination(o) }

// Check reports why a combination breaks the constraints of StencilMART Table I, or nil.
func (c Combination) Check() error {
	switch {
	case uint8(c) >= 1<<len(optimizations):
		return fmt.Errorf("combination %d has unknown optimization bits", uint8(c))
	case c.Has(BM) && c.Has(CM):
		return fmt.Errorf("%s: block merging (BM) and cyclic merging (CM) exclude each other", c)
	case c.Has(RT) && !c.Has(ST):
		return fmt.Errorf("%s: retiming (RT) needs streaming (ST)", c)
	case c.Has(PR) && !c.Has(ST):
		return fmt.Errorf("%s: prefetching (PR) needs streaming (ST)", c)
	}
	return nil
}

// String writes the combination as its optimizations joined by "_" in Table I order, e.g.
// "ST_BM_RT", or "BASE" for none.
func (c Combination) String() string {
	if int(c) < len(combinationNames) {
		return combinationNames[c]
	}
	return joinNames(c)
}

// combinationNames holds every combination's name, indexed by its bits: the analytic model looks
// an OC's factor up by name for every variant it times, millions of times in a fit.
var combinationNames = func() (names [1 << len(optimizations)]string) {
	for c := range names {
		names[c] = joinNames(Combination(c))
	}
	return names
}()

// joinNames writes c's optimizations joined by "_", or BaselineName for none.
func joinNames(c Combination) string {
	if c == 0 {
		return BaselineName
	}
	var parts []string
	for _, x := range optimizations {
		if c.Has(x.opt) {
			parts = append(parts, x.name)
		}
	}
	return strings.Join(parts, "_")
}

// MarshalText writes the combination's name.
func (c Combination) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText parses a combination's name.
func (c *Combination) UnmarshalText(b []byte) error {
	v, err := ParseCombination(string(b))
	*c = v
	return err
}

// Combinations returns every valid combination, the baseline first, in increasing bit order.
func Combinations() []Combination {
	var out []Combination
	for c := Combination(0); c < 1<<len(optimizations); c++ {
		if c.Check() == nil {
			out = append(out, c)
		}
	}
	return out
}

// ParseCombination reads a combination name such as "ST_BM_RT" (any order, any case; "BASE" or
// "" for none). An unknown or invalid name gets an error listing the valid ones.
func ParseCombination(s string) (Combination, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" || s == BaselineName {
		return 0, nil
	}
	var c Combination
	for _, part := range strings.Split(s, "_") {
		found := false
		for _, x := range optimizations {
			if x.name == part {
				if c.Has(x.opt) {
					return 0, fmt.Errorf("optimization combination %q names %s twice", s, part)
				}
				c, found = c.With(x.opt), true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown optimization %q in %q; valid combinations: %s", part, s, validNames())
		}
	}
	if err := c.Check(); err != nil {
		return 0, fmt.Errorf("%w; valid combinations: %s", err, validNames())
	}
	return c, nil
}

// ParseCombinations reads "all" (every combination) or a comma-separated list of OC names, each
// named once.
func ParseCombinations(list string) ([]Combination, error) {
	if strings.EqualFold(strings.TrimSpace(list), "all") {
		return Combinations(), nil
	}
	var ocs []Combination
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			// ParseCombination reads "" as BASE: an empty $OCS must not narrow a run to it.
			return nil, fmt.Errorf("the list %q has an empty name; give OCs such as BASE,ST_RT, or all", list)
		}
		oc, err := ParseCombination(name)
		if err != nil {
			return nil, err
		}
		if slices.Contains(ocs, oc) {
			return nil, fmt.Errorf("%s is listed twice", oc)
		}
		ocs = append(ocs, oc)
	}
	return ocs, nil
}

func validNames() string {
	var names []string
	for _, c := range Combinations() {
		names = append(names, c.String())
	}
	return strings.Join(names, ", ")
}
