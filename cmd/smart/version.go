package main

import (
	"cmp"
	"context"
	"flag"

	"smart/app"
)

func runVersion(_ context.Context, e *env, args []string) error {
	var asJSON bool
	_, rest, err := parse(e, "version", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the build and the models as one JSON object")
	})
	if err := cmp.Or(err, noArgs(rest, "")); err != nil {
		return err
	}
	v, err := app.CurrentVersion()
	if err != nil {
		return err
	}
	return printOut(e, asJSON, v, v.WriteText)
}
