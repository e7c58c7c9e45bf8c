package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"smart"
	"smart/catalog"
	"smart/space"
)

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
	flags := newFlags(e, "space")
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
	var progress func(int)
	if len(ocs) > 1 {
		progress = newProgress(e, "spaces", len(ocs)).Update
	}
	spaces, err := space.ForCombinations(ctx, st, ocs, gpu, progress)
	if err != nil {
		return err
	}
	switch {
	case o.check != "":
		return checkSetting(e, st, ocs[0], gpu, spaces[0], o.check, o.asJSON)
	case o.sample > 0:
		samples, err := spaces[0].Samples(ocs[0], o.sample, o.seed)
		switch {
		case err != nil:
			return err
		case o.asJSON:
			return writeJSON(e, samples)
		}
		return samples.WriteText(e.stdout)
	}
	report := space.NewReport(st, gpu.Name, ocs, spaces)
	if o.asJSON {
		return writeJSON(e, report)
	}
	return report.WriteTable(e.stdout)
}

// gpu is the GPU of --gpu with the limits --gpu-regs and --shared-kb override.
func (o *spaceOpts) gpu() (smart.GPU, error) {
	gpu, err := limitsGPU(o.catFile, o.gpuName)
	if err != nil || (o.regs == 0 && o.sharedKB == 0) {
		return gpu, err
	}
	gpu, err = catalog.Hypothetical(gpu, o.regs, o.sharedKB)
	if err != nil {
		return gpu, usagef("--gpu-regs or --shared-kb: %v", err)
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

func checkSetting(e *env, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, s *space.Space, text string, asJSON bool) error {
	set, err := smart.ParseSetting(text)
	if err != nil {
		return usagef("--check: %v", err)
	}
	verdict := s.Verdict(oc, set)
	if asJSON {
		if err := writeJSON(e, verdict); err != nil {
			return err
		}
	} else if verdict.Valid {
		fmt.Fprintf(e.stdout, "valid: %s is in the %s space of %s on %s\n", set, oc, st.Name, gpu.Name)
	}
	if !verdict.Valid {
		return fmt.Errorf("invalid setting for %s on %s: %w", oc, gpu.Name, verdict.Violation)
	}
	return nil
}
