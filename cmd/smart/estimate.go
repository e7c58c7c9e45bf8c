package main

import (
	"context"
	"flag"

	"smart"
	"smart/app"
)

// estimateHelp is the description of --help, with examples.
const estimateHelp = `
Prints the analytic model's time per step of a stencil under an optimization combination and
setting on a catalogued NVIDIA GPU, with its breakdown: DRAM bytes, FLOPs, loads per point,
occupancy and what limits it, waves of blocks, and the bound (memory, on-chip, compute, latency,
launch, or a floor: no step is faster than reading and writing its grid once per launch at the
GPU's copy bandwidth, nor than its FMAs at the GPU's peak rate of the element type). The number is simulated, not measured. Its constants are those smart
calibrate fitted to smart's measurements (data/calibration/stencil.json), with the interval their
held-out errors give; --literature uses the architecture literature's constants instead.
Without --setting it uses a default setting for the OC: blocks of 32x8 (x1 in 3-D), shared memory
on, constant-memory coefficients, merging and unroll factors 1, streaming along the outermost
axis (with a block size of 1 along it, so 32x1 in 2-D) and sb = extent/8 rounded down to a power
of two, tt = 2. A setting outside the search space of the stencil, OC and GPU gets the error
smart space --check gives for it.

Examples:
  smart estimate j3d7pt --gpu a100 --oc ST_TB
  smart estimate data/stencils/j3d7pt.json --gpu "NVIDIA A100-PCIE-40GB" --oc ST_BM --setting bx=64,by=4,bz=1,shared=1,const=1,sd=3,sb=64,ufx=1,ufy=1,ufz=1,bmx=1,bmy=2,bmz=1 --json`

// estimateOpts are the flags of the command.
type estimateOpts struct {
	estimate app.EstimateSettings
	asJSON   bool
}

func (o *estimateOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.estimate.GPU, "gpu", "", "GPU name or alias from the catalogue (smart gpus)")
	fs.StringVar(&o.estimate.OC, "oc", "", "optimization combination, e.g. ST_BM_TB or BASE")
	fs.StringVar(&o.estimate.Setting, "setting", "", "parameter setting k=v,... (default: see above)")
	fs.BoolVar(&o.asJSON, "json", false, "print the estimate as JSON")
	fs.StringVar(&o.estimate.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.BoolVar(&o.estimate.Literature, "literature", false, "use the literature's constants, not the calibrated ones")
}

func runEstimate(ctx context.Context, e *env, args []string) error {
	var o estimateOpts
	flags := newFlags(e, "estimate", "FILE --gpu NAME --oc OC [--setting k=v,...] [--json] [--catalog FILE]", estimateHelp)
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) != 1:
		return usagef("give one stencil file")
	case o.estimate.GPU == "":
		return usagef("give the GPU with --gpu (smart gpus lists them)")
	case o.estimate.OC == "":
		return usagef("give the optimization combination with --oc, e.g. --oc ST_TB or --oc BASE")
	}
	st, err := loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return err
	}
	est, err := app.EstimateStencil(ctx, st, files[0], o.estimate)
	if err != nil {
		return settingFlag(err, kernelFlags)
	}
	if o.asJSON {
		return writeJSON(e, est)
	}
	return est.WriteText(e.stdout)
}
