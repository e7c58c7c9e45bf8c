package train

import (
	"fmt"
	"strings"

	"smart/models"
)

// Describe says what the matrix was built from: rows, columns, sources and GPUs, the classes
// of a selection set and the analytic model's column.
func (s *Set) Describe() string {
	var b strings.Builder
	groups := map[string]bool{}
	for _, g := range s.Data.Groups {
		groups[g] = true
	}
	what := "stencils"
	if s.Inputs.Kernel != "" {
		what = "configurations of kernel " + s.Inputs.Kernel
	}
	fmt.Fprintf(&b, "data: %d rows of %d columns, %d %s, GPUs %s", s.Data.Rows(), len(s.Data.Features), len(groups), what, strings.Join(s.GPUNames(), ", "))
	for _, r := range s.Refs {
		fmt.Fprintf(&b, "\n  %s: %d rows from %s", r.Path, r.Rows, models.SourceCounts(r.Sources))
		if w := r.SimulatedWith(); w != "" {
			fmt.Fprintf(&b, ", %s", w)
		}
	}
	for _, t := range s.Torn {
		fmt.Fprintf(&b, "\n  left out %s", t)
	}
	if s.Data.Task == models.Select {
		var names []string
		for _, c := range s.Classes {
			names = append(names, c.OC.String())
		}
		fmt.Fprintf(&b, "\n  %d classes: %s", len(s.Classes), strings.Join(names, " "))
	}
	if s.Inputs.Analytic != "" {
		fmt.Fprintf(&b, "\n  the analytic model's time (%s) is a column", s.Inputs.Analytic)
	}
	return b.String()
}
