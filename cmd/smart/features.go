package main

import (
	"context"
	"flag"
	"fmt"

	"smart"
	"smart/app"
)

// featuresOpts are the flags of the command.
type featuresOpts struct {
	asJSON   bool
	tensor   bool
	maxOrder int
}

func (o *featuresOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per file, one per line (JSON Lines)")
	fs.BoolVar(&o.tensor, "tensor", false, "include the binary tensor")
	fs.IntVar(&o.maxOrder, "max-order", smart.DefaultMaxOrder, fmt.Sprintf("R: tensor radius and the largest order a file may have, up to %d", smart.MaxMaxOrder))
}

func runFeatures(ctx context.Context, e *env, args []string) error {
	var o featuresOpts
	flags := newFlags(e, "features")
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usagef("give one or more stencil files")
	}
	if o.maxOrder < 1 || o.maxOrder > smart.MaxMaxOrder {
		return usagef("--max-order is %d; use 1 to %d", o.maxOrder, smart.MaxMaxOrder)
	}
	reports, errs := app.FeatureReports(files, e.stdin, o.maxOrder, o.tensor)
	for i, rep := range reports {
		if o.asJSON {
			err = writeJSON(e, rep)
		} else {
			if i > 0 {
				fmt.Fprintln(e.stdout)
			}
			err = rep.WriteText(e.stdout)
		}
		if err != nil {
			return err
		}
	}
	return errs
}
