package main

import (
	"context"
	"flag"
	"fmt"

	"smart"
	"smart/app"
	"smart/space"
)

// spaceFlags name the flag of each field of app.SpaceQuery.
var spaceFlags = map[string]string{"OC": "--oc", "GPU": "--gpu", "Regs": "--gpu-regs", "SharedKB": "--shared-kb",
	"Limits": "--gpu-regs or --shared-kb", "Sample": "--sample", "Setting": "--check"}

func runSpace(ctx context.Context, e *env, args []string) error {
	var q app.SpaceQuery
	var asJSON bool
	_, files, err := parse(e, "space", args, func(fs *flag.FlagSet) {
		fs.StringVar(&q.OC, "oc", "all", "optimization combination, e.g. ST_BM_TB, BASE, or all")
		fs.StringVar(&q.GPU, "gpu", "", "GPU whose limits apply, from the catalogue (smart gpus); default sm_80")
		fs.StringVar(&q.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
		fs.IntVar(&q.Regs, "gpu-regs", 0, "override the GPU's registers per thread")
		fs.IntVar(&q.SharedKB, "shared-kb", 0, "override the GPU's shared memory per block, KiB")
		fs.IntVar(&q.Sample, "sample", 0, "print N distinct uniformly random valid settings")
		fs.Uint64Var(&q.Seed, "seed", 1, "random seed of --sample")
		fs.StringVar(&q.Setting, "check", "", "say whether setting k=v,... is valid and why not")
		fs.BoolVar(&asJSON, "json", false, "print JSON")
	})
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return usagef("give one stencil file")
	}
	st, gpu, ocs, err := openSpace(e, q, files[0])
	if err != nil {
		return settingFlag(err, spaceFlags)
	}
	var progress func(int)
	if len(ocs) > 1 {
		progress = newProgress(e, "spaces", len(ocs)).Update
	}
	spaces, err := space.ForCombinations(ctx, st, ocs, gpu, progress)
	switch {
	case err != nil:
		return err
	case q.Setting != "":
		return checkSetting(e, q, st, gpu, ocs[0], spaces[0], asJSON)
	case q.Sample > 0:
		samples, err := spaces[0].Samples(ocs[0], q.Sample, q.Seed)
		if err != nil {
			return err
		}
		return printOut(e, asJSON, samples, samples.WriteText)
	}
	report := space.NewReport(st, gpu.Name, ocs, spaces)
	return printOut(e, asJSON, report, report.WriteTable)
}

// openSpace checks the query, then reads the GPU (a misspelt name is a usage error, exit 2, as
// in tune, before the stencil is read), the stencil and the combinations.
func openSpace(e *env, q app.SpaceQuery, file string) (*smart.Stencil, smart.GPU, []smart.Combination, error) {
	if err := q.Check(); err != nil {
		return nil, smart.GPU{}, nil, err
	}
	gpu, err := q.LimitsGPU()
	if err != nil {
		return nil, gpu, nil, err
	}
	st, err := loadStencil(e, file, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, gpu, nil, err
	}
	ocs, err := q.Combinations()
	return st, gpu, ocs, err
}

// checkSetting prints the verdict on the setting of --check; an invalid one fails the command.
func checkSetting(e *env, q app.SpaceQuery, st *smart.Stencil, gpu smart.GPU, oc smart.Combination, s *space.Space, asJSON bool) error {
	set, err := q.ParseSetting()
	if err != nil {
		return settingFlag(err, spaceFlags)
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
