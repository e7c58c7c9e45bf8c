package space

import (
	"fmt"
	"slices"
	"strings"

	"smart"
)

// Violation says why a setting is not in the space: a parameter is unknown or missing, its
// value is not one of its values, or a constraint rejects the values it read.
type Violation struct {
	Param      string   `json:"param"`                // the parameter concerned
	Constraint string   `json:"constraint,omitempty"` // the rejecting constraint's name; empty for the other problems
	Reads      []string `json:"reads,omitempty"`      // the parameters the constraint read
	Values     []int    `json:"values,omitempty"`     // and their values
	Problem    string   `json:"problem,omitempty"`    // what is wrong, in words
}

func (v *Violation) Error() string {
	if v.Constraint == "" {
		return v.Problem
	}
	var read []string
	for i, r := range v.Reads {
		read = append(read, fmt.Sprintf("%s=%d", r, v.Values[i]))
	}
	msg := fmt.Sprintf("%s: constraint %q rejects %s", v.Param, v.Constraint, strings.Join(read, ","))
	if v.Problem != "" {
		msg += ": " + v.Problem
	}
	return msg
}

// Check reports why a setting is not a valid setting of the space, as a *Violation, or nil.
// Parameters are checked in definition order and the first problem is reported: the first
// violated constraint is the one a generation loop nest would have hit first.
func (s *Space) Check(set smart.Setting) error { return checkParams(s.params, s.index, set) }

// checkParams is Check over the parameters, index naming their positions.
func checkParams(params []Param, index map[string]int, set smart.Setting) error {
	var unknown []string
	for k := range set {
		if _, ok := index[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return &Violation{Param: unknown[0], Problem: fmt.Sprintf("unknown parameter %s; the space has %s", unknown[0], strings.Join(names(params), ","))}
	}
	for _, p := range params {
		v, ok := set[p.Name]
		if !ok {
			return &Violation{Param: p.Name, Problem: fmt.Sprintf("parameter %s is missing; the space has %s", p.Name, strings.Join(names(params), ","))}
		}
		if !slices.Contains(p.Values, v) {
			return &Violation{Param: p.Name, Problem: fmt.Sprintf("%s=%d is not one of its values %s", p.Name, v, formatValues(p.Values))}
		}
		for _, c := range p.Constraints {
			vals := make([]int, len(c.Reads))
			for j, r := range c.Reads {
				vals[j] = set[r]
			}
			if c.Fn(slices.Clone(vals)) {
				continue
			}
			viol := &Violation{Param: p.Name, Constraint: c.Name, Reads: slices.Clone(c.Reads), Values: vals}
			if c.Explain != nil {
				viol.Problem = c.Explain(slices.Clone(vals))
			}
			return viol
		}
	}
	return nil
}

// formatValues writes a value list, shortened in the middle when long.
func formatValues(v []int) string {
	parts := make([]string, 0, len(v))
	for i, x := range v {
		if len(v) > 12 && i == 5 {
			parts = append(parts, "...")
		}
		if len(v) > 12 && i >= 5 && i < len(v)-5 {
			continue
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return "[" + strings.Join(parts, " ") + "]"
}
