package main

import (
	"context"
	"flag"
	"fmt"

	"smart"
	"smart/app"
)

func runFeatures(ctx context.Context, e *env, args []string) error {
	var asJSON, tensor bool
	var maxOrder int
	_, files, err := parse(e, "features", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print one JSON object per file, one per line (JSON Lines)")
		fs.BoolVar(&tensor, "tensor", false, "include the binary tensor")
		fs.IntVar(&maxOrder, "max-order", smart.DefaultMaxOrder, fmt.Sprintf("R: tensor radius and the largest order a file may have, up to %d", smart.MaxMaxOrder))
	})
	if err == nil {
		err = checkStencilFiles(files, maxOrder)
	}
	if err != nil {
		return err
	}
	reports, errs := app.FeatureReports(files, e.stdin, maxOrder, tensor)
	for i, rep := range reports {
		if i > 0 && !asJSON {
			fmt.Fprintln(e.stdout)
		}
		if err := printOut(e, asJSON, rep, rep.WriteText); err != nil {
			return err
		}
	}
	return errs
}
