package space

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"strings"
	"text/tabwriter"

	"smart"
)

// ForCombinations builds the space of st under each of ocs on gpu, calling progress (where
// set) with the number built.
func ForCombinations(ctx context.Context, st *smart.Stencil, ocs []smart.Combination, gpu smart.GPU, progress func(done int)) ([]*Space, error) {
	spaces := make([]*Space, 0, len(ocs))
	for i, oc := range ocs {
		s, err := ForStencilContext(ctx, st, oc, gpu)
		if err != nil {
			return nil, err
		}
		spaces = append(spaces, s)
		if progress != nil {
			progress(i + 1)
		}
	}
	return spaces, nil
}

// Report describes the setting spaces of a stencil under several OCs: the size of each and
// the groups of interdependent parameters whose product it is, and with one OC each
// parameter's values.
type Report struct {
	Stencil      string        `json:"stencil"`
	StencilID    string        `json:"stencil_id"`
	Dims         int           `json:"dims"`
	Order        int           `json:"order"`
	Grid         []int         `json:"grid"`
	GPU          string        `json:"gpu"`
	Combinations []Combination `json:"combinations"`
}

// Combination is the space of one OC in a Report.
type Combination struct {
	OC       smart.Combination `json:"oc"`
	Settings *big.Int          `json:"settings"`
	Groups   []GroupSize       `json:"groups"`
	Params   []ParamValues     `json:"params,omitempty"`
}

// GroupSize is a group of interdependent parameters and its number of settings.
type GroupSize struct {
	Params   []string `json:"params"`
	Settings uint64   `json:"settings"`
}

// ParamValues is a parameter and its values before the constraints.
type ParamValues struct {
	Name   string `json:"name"`
	Values []int  `json:"values"`
}

// NewReport describes spaces, the spaces of st under ocs (spaces[i] is that of ocs[i]) with
// the limits of the GPU named gpu.
func NewReport(st *smart.Stencil, gpu string, ocs []smart.Combination, spaces []*Space) *Report {
	r := &Report{Stencil: st.Name, StencilID: st.ID(), Dims: st.Dims, Order: st.Order(), Grid: st.Grid[:st.Dims], GPU: gpu}
	for i, s := range spaces {
		c := Combination{OC: ocs[i], Settings: s.Count()}
		for _, g := range s.Groups() {
			c.Groups = append(c.Groups, GroupSize{Params: g.Params, Settings: g.Count})
		}
		if len(ocs) == 1 {
			for _, p := range s.Params() {
				c.Params = append(c.Params, ParamValues{Name: p.Name, Values: p.Values})
			}
		}
		r.Combinations = append(r.Combinations, c)
	}
	return r
}

// WriteTable writes a line per OC with its size and groups, the total where there are
// several, and with one OC the values of each parameter.
func (r *Report) WriteTable(w io.Writer) error {
	var grid [3]int
	copy(grid[:], r.Grid)
	fmt.Fprintf(w, "%s: %d-D, order %d, grid %s; resource limits of %s\n", r.Stencil, r.Dims, r.Order, smart.FormatGrid(grid, len(r.Grid)), r.GPU)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OC\tsettings\tgroups (settings of each; the space is their product)")
	total := new(big.Int)
	for _, c := range r.Combinations {
		var groups []string
		for _, g := range c.Groups {
			groups = append(groups, fmt.Sprintf("{%s}=%d", strings.Join(g.Params, ","), g.Settings))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.OC, c.Settings, strings.Join(groups, " x "))
		total.Add(total, c.Settings)
	}
	if len(r.Combinations) > 1 {
		fmt.Fprintf(tw, "all\t%s\t\n", total)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Combinations) == 1 {
		fmt.Fprintln(w, "\nparameter values (before the constraints):")
		for _, p := range r.Combinations[0].Params {
			if _, err := fmt.Fprintf(w, "  %-7s %s\n", p.Name, strings.Trim(fmt.Sprint(p.Values), "[]")); err != nil {
				return err
			}
		}
	}
	return nil
}

// Verdict is the check of a setting against the space of an OC.
type Verdict struct {
	OC        smart.Combination `json:"oc"`
	Setting   smart.Setting     `json:"setting"`
	Valid     bool              `json:"valid"`
	Violation *Violation        `json:"violation,omitempty"`
}

// Verdict checks set against the space of oc (s): valid, or the violation Check reports.
func (s *Space) Verdict(oc smart.Combination, set smart.Setting) Verdict {
	err := s.Check(set)
	v := Verdict{OC: oc, Setting: set, Valid: err == nil}
	errors.As(err, &v.Violation)
	return v
}

// Samples are distinct settings drawn uniformly at random from the space of an OC.
type Samples struct {
	OC       smart.Combination `json:"oc"`
	Settings []smart.Setting   `json:"settings"`
}

// Samples draws n distinct settings from the space of oc (s); a seed draws the same settings
// on every machine.
func (s *Space) Samples(oc smart.Combination, n int, seed uint64) (Samples, error) {
	sets, err := s.Sample(rand.New(rand.NewPCG(seed, 0x5eed)), n)
	return Samples{OC: oc, Settings: sets}, err
}

// WriteText writes a setting a line, in the k=v,... form.
func (r Samples) WriteText(w io.Writer) error {
	for _, set := range r.Settings {
		if _, err := fmt.Fprintln(w, set); err != nil {
			return err
		}
	}
	return nil
}
