package main

import (
	"context"
	"flag"
	"fmt"

	"smart"
	"smart/app"
	"smart/space"
)

// spaceFlags name the flag of each field of app.SpaceQuery named otherwise.
var spaceFlags = map[string]string{"Regs": "--gpu-regs", "Limits": "--gpu-regs or --shared-kb", "Setting": "--check"}

func runSpace(ctx context.Context, e *env, args []string) error {
	var q app.SpaceQuery
	var asJSON bool
	fs, files, err := parse(e, "space", args, func(fs *flag.FlagSet) {
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
	gpu, ocs, set, err := q.Open()
	if err != nil {
		return settingFlag(fs, err, spaceFlags)
	}
	st, err := loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return err
	}
	if err := q.CheckStencil(st, files[0], gpu); err != nil {
		return err
	}
	var progress func(int)
	if len(ocs) > 1 {
		progress = newProgress(e, "spaces", len(ocs)).Update
	}
	spaces, err := space.ForCombinations(ctx, st, ocs, gpu, progress)
	switch {
	case err != nil:
		return err
	case set != nil:
		return printVerdict(e, spaces[0].Verdict(ocs[0], set), st.Name, gpu.Name, asJSON)
	case q.Sample > 0:
		if err := app.CheckSpace(ctx, st, ocs[0], gpu, spaces[0]); err != nil {
			return err
		}
		samples, err := spaces[0].Samples(ocs[0], q.Sample, q.Seed)
		if err != nil {
			return err
		}
		return printOut(e, asJSON, samples, samples.WriteText)
	}
	report := space.NewReport(st, gpu.Name, ocs, spaces)
	return printOut(e, asJSON, report, report.WriteTable)
}

// printVerdict prints the verdict on the setting of --check; an invalid one fails the command.
func printVerdict(e *env, v space.Verdict, stencil, gpu string, asJSON bool) error {
	if asJSON {
		if err := writeJSON(e, v); err != nil {
			return err
		}
	} else if v.Valid {
		fmt.Fprintf(e.stdout, "valid: %s is in the %s space of %s on %s\n", v.Setting, v.OC, stencil, gpu)
	}
	if !v.Valid {
		return fmt.Errorf("invalid setting for %s on %s: %w", v.OC, gpu, v.Violation)
	}
	return nil
}
