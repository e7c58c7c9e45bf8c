package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"smart"
	"smart/app"
	"smart/generator"
)

func runEstimate(ctx context.Context, e *env, args []string) error {
	var s app.EstimateSettings
	var asJSON bool
	fs, files, err := parse(e, "estimate", args, func(fs *flag.FlagSet) {
		fs.StringVar(&s.GPU, "gpu", "", "GPU name or alias from the catalogue (smart gpus)")
		fs.StringVar(&s.OC, "oc", "", "optimization combination, e.g. ST_BM_TB or BASE")
		fs.StringVar(&s.Setting, "setting", "", "parameter setting k=v,... (default: see above)")
		fs.BoolVar(&asJSON, "json", false, "print the estimate as JSON")
		fs.StringVar(&s.Catalog, "catalog", "", "GPU catalogue file merged over the embedded one")
		fs.BoolVar(&s.Literature, "literature", false, "use the literature's constants, not the calibrated ones")
		fs.StringVar(&s.Calibration, "calibration", "", "a `FILE` of constants smart calibrate -o wrote (default: the embedded data/calibration/stencil.json)")
	})
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return usagef("give one stencil file")
	case s.GPU == "":
		return usagef("give the GPU with --gpu (smart gpus lists them)")
	case s.OC == "":
		return usagef("give the optimization combination with --oc, e.g. --oc ST_TB or --oc BASE")
	}
	st, err := loadStencil(e, files[0], smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if errors.Is(err, generator.ErrDirectory) {
		return fmt.Errorf("%w (smart predict takes a directory: a row per stencil)", err)
	}
	if err != nil {
		return err
	}
	est, err := app.EstimateStencil(ctx, st, files[0], s)
	if err != nil {
		return settingFlag(fs, err, nil)
	}
	return printOut(e, asJSON, est, est.WriteText)
}
