package main

import (
	"context"

	"smart/app"
)

func runVersion(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "version")
	asJSON := fs.Bool("json", false, "print the build and the models as one JSON object")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("version takes no arguments, got %q", rest[0])
	}
	v, err := app.CurrentVersion()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, v)
	}
	return v.WriteText(e.stdout)
}
