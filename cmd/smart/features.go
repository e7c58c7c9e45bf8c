package main

import (
	"context"
	"flag"
	"fmt"

	"smart"
	"smart/app"
)

// featuresHelp is the description of --help, with examples.
const featuresHelp = `
Prints the features learned models read for each stencil: StencilMART's Table II (order, nnz,
sparsity, and per order n = 1..R the points at Chebyshev distance n and their ratio to all
points at that distance) plus extents, axis and diagonal points, FLOPs per point, symmetry,
element size and grid. --tensor adds the binary (2R+1)^d tensor, z, y, x order (x fastest).
R is the maximum order, 4 by default (a 9x9 or 9x9x9 tensor). FILE - reads stdin.

Examples:
  smart features data/stencils/j3d27pt.json
  smart features --json --tensor data/stencils/j2d5pt.json | jq '.features.nnz'`

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
	flags := newFlags(e, "features", "[--json] [--tensor] [--max-order R] FILE...", featuresHelp)
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
