package main

import (
	"context"
	"flag"

	"smart"
	"smart/app"
)

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
	flags := newFlags(e, "estimate")
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
