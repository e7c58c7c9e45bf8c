package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"smart"
	"smart/generator"
)

func runShow(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "show", "[--max-order N] FILE...", `
Draws each stencil's access pattern, one x-y slice per z plane for 3-D (+y at the top), after a
one-line summary: name, dimensions, order, points, grid, element type, steps and ID.
  @ the centre   o a point the stencil reads   . a point it does not read
FILE - reads stdin; a name of an embedded sample (smart show j3d27pt) reads that sample
when no such file exists.

Examples:
  smart show data/stencils/j3d7pt.json
  smart generate --shape diamond --dims 2 --order 3 --out - | smart show -`)
	maxOrder := flags.Int("max-order", smart.DefaultMaxOrder, fmt.Sprintf("largest order a file may have, up to %d", smart.MaxMaxOrder))
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("give one or more stencil files")
	case *maxOrder < 1 || *maxOrder > smart.MaxMaxOrder:
		return usagef("--max-order is %d; it lies in 1-%d", *maxOrder, smart.MaxMaxOrder)
	case len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" })) > 1:
		return usagef("'-' (standard input) is given twice; it can be read once")
	}
	var errs []error
	for i, path := range files {
		s, err := loadStencil(e, path, smart.Limits{MaxOrder: *maxOrder})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintln(e.stdout, s.Summary())
		if err := s.WritePattern(e.stdout); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// loadStencil reads a stencil file, stdin for "-", or an embedded sample (generator.Load).
func loadStencil(e *env, path string, lim smart.Limits) (*smart.Stencil, error) {
	return generator.Load(path, e.stdin, lim)
}
