package space

import (
	"fmt"
	"slices"
)

// Param is a tuning parameter: a name, the finite ordered list of values it may take, and
// constraints that filter those values (ATF's parameter constraints, section 3.1). A constraint
// may read this parameter and any parameter defined before it; all of a parameter's
// constraints must hold.
type Param struct {
	Name        string
	Values      []int
	Constraints []Constraint
}

// Constraint is a named predicate over the values of the parameters it reads. Declaring what
// it reads, as ATF does, is what lets the space find groups of interdependent parameters and
// check each constraint as soon as the last parameter it reads is bound.
type Constraint struct {
	// Name says what the constraint demands, e.g. "32 <= bx*by*bz <= 1024"; a setting that
	// breaks the constraint is reported with this name.
	Name string
	// Reads names the parameters the constraint reads, in the order Fn receives their values.
	Reads []string
	// Fn reports whether the values (one per entry of Reads) satisfy the constraint. It is
	// called from several goroutines at once and must be a pure function of the values (it
	// may cache its answers).
	Fn func(v []int) bool
	// Explain, optional, says in words why values that Fn rejects are rejected, for Check.
	Explain func(v []int) string
	// Monotone, optional, names read parameters in which the constraint only gets harder:
	// raising one of their values never turns a rejection into an acceptance (a resource
	// limit in a tile size, say). Generation then also checks the constraint before those
	// parameters are bound, with them at their smallest values, and prunes whole subtrees
	// early. It changes how fast the space is generated, never which settings it holds,
	// provided the declaration is true.
	Monotone []string
}

// Range returns lo, lo+step, ... up to and including hi.
func Range(lo, hi, step int) []int {
	if step <= 0 {
		return nil
	}
	var out []int
	for v := lo; v <= hi; v += step {
		out = append(out, v)
	}
	return out
}

// PowersOfTwo returns the powers of two from lo to hi inclusive (lo is rounded up to a power
// of two; values below 1 are skipped).
func PowersOfTwo(lo, hi int) []int {
	var out []int
	for v := 1; v <= hi && v > 0; v *= 2 {
		if v >= lo {
			out = append(out, v)
		}
	}
	return out
}

// Bool returns the values of an on/off parameter: 0 and 1.
func Bool() []int { return []int{0, 1} }

// validate checks one parameter against those defined before it (index maps their names to
// positions).
func (p Param) validate(index map[string]int) error {
	if p.Name == "" {
		return fmt.Errorf("parameter %d has no name", len(index))
	}
	if _, dup := index[p.Name]; dup {
		return fmt.Errorf("parameter %s is defined twice", p.Name)
	}
	if len(p.Values) == 0 {
		return fmt.Errorf("parameter %s has no values; give it at least one", p.Name)
	}
	seen := make(map[int]bool, len(p.Values))
	for _, v := range p.Values {
		if seen[v] {
			return fmt.Errorf("parameter %s lists the value %d twice; list each value once", p.Name, v)
		}
		seen[v] = true
	}
	for _, c := range p.Constraints {
		if c.Fn == nil {
			return fmt.Errorf("constraint %q of parameter %s has no function", c.Name, p.Name)
		}
		if len(c.Reads) == 0 {
			return fmt.Errorf("constraint %q of parameter %s reads no parameter; declare what it reads", c.Name, p.Name)
		}
		for _, m := range c.Monotone {
			if !slices.Contains(c.Reads, m) {
				return fmt.Errorf("constraint %q of parameter %s declares itself monotone in %s, which it does not read", c.Name, p.Name, m)
			}
		}
		for _, r := range c.Reads {
			if r == p.Name {
				continue
			}
			if _, ok := index[r]; !ok {
				return fmt.Errorf("constraint %q of parameter %s reads %s, which is not a parameter defined before %s", c.Name, p.Name, r, p.Name)
			}
		}
	}
	return nil
}

// attach adds c to the constraints of the last parameter it reads, where a loop nest over the
// parameters can first check it. Every name c reads must be a parameter.
func attach(params []Param, c Constraint) []Param {
	last := 0
	for i, p := range params {
		if slices.Contains(c.Reads, p.Name) {
			last = i
		}
	}
	params[last].Constraints = append(params[last].Constraints, c)
	return params
}
