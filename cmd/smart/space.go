package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/catalog"
	"smart/space"
)

// spaceHelp is the description of --help, with examples.
const spaceHelp = `
Prints the size of a stencil's setting space (csTuner Table I, powers of two, with the
explicit constraints and the GPU's register, shared-memory and thread limits) for each
optimization combination, and the groups of interdependent parameters whose product it is.
With one --oc it also lists each parameter's values. --sample N prints N distinct uniformly
random valid settings in the k=v,... form other commands take; --check says whether a setting
is valid and which constraint rejects it (exit status 1 when invalid). The resource limits are
those of --gpu from the catalogue, sm_80 (A100) by default; --gpu-regs and --shared-kb override
the registers per thread and shared memory per block (raising the per-SM amounts they would
exceed): a hypothetical GPU, no longer held to its compute capability's limits, whose numbers
must stay consistent.

Examples:
  smart space j3d7pt
  smart space j3d7pt --oc ST_CM_RT --gpu v100
  smart space data/stencils/j2d9pt.json --oc ST_BM --sample 5 --seed 1
  smart space j3d7pt --oc ST --check bx=32,by=8,bz=1,shared=1,const=0,sd=3,sb=64,ufx=1,ufy=1,ufz=1`

// spaceOpts are the flags of the command.
type spaceOpts struct {
	ocName   string
	gpuName  string
	catFile  string
	regs     int
	sharedKB int
	sample   int
	seed     uint64
	check    string
	asJSON   bool
}

func (o *spaceOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.ocName, "oc", "all", "optimization combination, e.g. ST_BM_TB, BASE, or all")
	fs.StringVar(&o.gpuName, "gpu", "", "GPU whose limits apply, from the catalogue (smart gpus); default sm_80")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.IntVar(&o.regs, "gpu-regs", 0, "override the GPU's registers per thread")
	fs.IntVar(&o.sharedKB, "shared-kb", 0, "override the GPU's shared memory per block, KiB")
	fs.IntVar(&o.sample, "sample", 0, "print N distinct uniformly random valid settings")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed of --sample")
	fs.StringVar(&o.check, "check", "", "say whether setting k=v,... is valid and why not")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON")
}

func runSpace(ctx context.Context, e *env, args []string) error {
	var o spaceOpts
	flags := newFlags(e, "space", "FILE [--oc OC|all] [--gpu NAME] [--sample N [--seed S] | --check k=v,...] [--json]", spaceHelp)
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) != 1:
		return usagef("give one stencil file")
	case o.sample < 0:
		return usagef("--sample must be positive")
	case o.sample > 0 && o.check != "":
		return usagef("give --sample or --check, not both")
	case o.regs < 0 || o.sharedKB < 0:
		return usagef("--gpu-regs and --shared-kb must be positive")
	}
	// The GPU before the stencil: a misspelt name is a usage error (exit 2), as in tune.
	gpu, err := o.gpu()
	if err != nil {
		return err
	}
	st, err := loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return err
	}
	ocs, err := o.ocs()
	if err != nil {
		return err
	}
	spaces, err := stencilSpaces(ctx, e, st, ocs, gpu)
	if err != nil {
		return err
	}
	switch {
	case o.check != "":
		return checkSetting(e, st, ocs[0], gpu, spaces[0], o.check, o.asJSON)
	case o.sample > 0:
		return sampleSettings(e, ocs[0], spaces[0], o.sample, o.seed, o.asJSON)
	}
	out := spaceOutput{Stencil: st.Name, StencilID: st.ID(), Dims: st.Dims, Order: st.Order(), Grid: st.Grid[:st.Dims], GPU: gpu.Name}
	for i, s := range spaces {
		c := ocSpace{OC: ocs[i], Settings: s.Count()}
		for _, g := range s.Groups() {
			c.Groups = append(c.Groups, groupOutput{Params: g.Params, Settings: g.Count})
		}
		if len(ocs) == 1 {
			for _, p := range s.Params() {
				c.Params = append(c.Params, paramOutput{Name: p.Name, Values: p.Values})
			}
		}
		out.Combinations = append(out.Combinations, c)
	}
	if o.asJSON {
		return writeJSON(e, out)
	}
	return printSpaces(e, out)
}

// gpu is the GPU of --gpu with the limits --gpu-regs and --shared-kb override.
func (o *spaceOpts) gpu() (smart.GPU, error) {
	gpu, err := limitsGPU(o.catFile, o.gpuName)
	if err != nil || (o.regs == 0 && o.sharedKB == 0) {
		return gpu, err
	}
	// A hypothetical GPU: the per-block limits raise the per-SM ones they would exceed, and
	// the result must still pass catalog.Validate.
	if o.regs > 0 {
		gpu.MaxRegsPerThread = o.regs
		gpu.RegsPerBlock, gpu.RegsPerSM = max(gpu.RegsPerBlock, o.regs), max(gpu.RegsPerSM, o.regs)
	}
	if o.sharedKB > 0 {
		gpu.SharedPerBlockKB, gpu.SharedPerSMKB = o.sharedKB, max(gpu.SharedPerSMKB, o.sharedKB)
	}
	if err := catalog.Validate(gpu); err != nil {
		return gpu, usagef("--gpu-regs or --shared-kb: %v", err)
	}
	if o.regs > 0 {
		gpu.Name += fmt.Sprintf(" (%d registers per thread)", o.regs)
	}
	if o.sharedKB > 0 {
		gpu.Name += fmt.Sprintf(" (%d KiB shared per block)", o.sharedKB)
	}
	return gpu, nil
}

// ocs reads --oc: one combination, or all where neither --sample nor --check needs one.
func (o *spaceOpts) ocs() ([]smart.Combination, error) {
	if strings.TrimSpace(o.ocName) == "" {
		return nil, usagef("--oc is empty; give an optimization combination (BASE for none), or all")
	}
	if strings.EqualFold(o.ocName, "all") {
		if o.sample > 0 || o.check != "" {
			return nil, usagef("--sample and --check need one combination: give --oc")
		}
		return smart.Combinations(), nil
	}
	oc, err := smart.ParseCombination(o.ocName)
	if err != nil {
		return nil, usagef("--oc: %v", err)
	}
	return []smart.Combination{oc}, nil
}

// stencilSpaces builds the spaces of st under ocs on gpu, with a bar for more than one.
func stencilSpaces(ctx context.Context, e *env, st *smart.Stencil, ocs []smart.Combination, gpu smart.GPU) ([]*space.Space, error) {
	var spaces []*space.Space
	var bar *progress
	if len(ocs) > 1 {
		bar = newProgress(e, "spaces", len(ocs))
	}
	for i, oc := range ocs {
		s, err := space.ForStencilContext(ctx, st, oc, gpu)
		if err != nil {
			return nil, err
		}
		spaces = append(spaces, s)
		if bar != nil {
			bar.Update(i + 1)
		}
	}
	return spaces, nil
}

type spaceOutput struct {
	Stencil      string    `json:"stencil"`
	StencilID    string    `json:"stencil_id"`
	Dims         int       `json:"dims"`
	Order        int       `json:"order"`
	Grid         []int     `json:"grid"`
	GPU          string    `json:"gpu"`
	Combinations []ocSpace `json:"combinations"`
}

type ocSpace struct {
	OC       smart.Combination `json:"oc"`
	Settings *big.Int          `json:"settings"`
	Groups   []groupOutput     `json:"groups"`
	Params   []paramOutput     `json:"params,omitempty"`
}

type groupOutput struct {
	Params   []string `json:"params"`
	Settings uint64   `json:"settings"`
}

type paramOutput struct {
	Name   string `json:"name"`
	Values []int  `json:"values"`
}

func printSpaces(e *env, o spaceOutput) error {
	grid := make([]string, len(o.Grid))
	for i, n := range o.Grid {
		grid[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(e.stdout, "%s: %d-D, order %d, grid %s; resource limits of %s\n", o.Stencil, o.Dims, o.Order, strings.Join(grid, "x"), o.GPU)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OC\tsettings\tgroups (settings of each; the space is their product)")
	total := new(big.Int)
	for _, c := range o.Combinations {
		var groups []string
		for _, g := range c.Groups {
			groups = append(groups, fmt.Sprintf("{%s}=%d", strings.Join(g.Params, ","), g.Settings))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.OC, c.Settings, strings.Join(groups, " x "))
		total.Add(total, c.Settings)
	}
	if len(o.Combinations) > 1 {
		fmt.Fprintf(tw, "all\t%s\t\n", total)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(o.Combinations) == 1 {
		fmt.Fprintln(e.stdout, "\nparameter values (before the constraints):")
		for _, p := range o.Combinations[0].Params {
			fmt.Fprintf(e.stdout, "  %-7s %s\n", p.Name, strings.Trim(fmt.Sprint(p.Values), "[]"))
		}
	}
	return nil
}

func sampleSettings(e *env, oc smart.Combination, s *space.Space, n int, seed uint64, asJSON bool) error {
	sets, err := s.Sample(rand.New(rand.NewPCG(seed, 0x5eed)), n)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e, struct {
			OC       smart.Combination `json:"oc"`
			Settings []smart.Setting   `json:"settings"`
		}{oc, sets})
	}
	for _, set := range sets {
		fmt.Fprintln(e.stdout, set)
	}
	return nil
}

func checkSetting(e *env, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, s *space.Space, text string, asJSON bool) error {
	set, err := smart.ParseSetting(text)
	if err != nil {
		return usagef("--check: %v", err)
	}
	verdict := s.Check(set)
	if asJSON {
		out := struct {
			OC        smart.Combination `json:"oc"`
			Setting   smart.Setting     `json:"setting"`
			Valid     bool              `json:"valid"`
			Violation *space.Violation  `json:"violation,omitempty"`
		}{OC: oc, Setting: set, Valid: verdict == nil}
		errors.As(verdict, &out.Violation)
		if err := writeJSON(e, out); err != nil {
			return err
		}
	} else if verdict == nil {
		fmt.Fprintf(e.stdout, "valid: %s is in the %s space of %s on %s\n", set, oc, st.Name, gpu.Name)
	}
	if verdict != nil {
		return fmt.Errorf("invalid setting for %s on %s: %w", oc, gpu.Name, verdict)
	}
	return nil
}
