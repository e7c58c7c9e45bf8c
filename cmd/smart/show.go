package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"smart"
)

func runShow(ctx context.Context, e *env, args []string) error {
	var maxOrder int
	_, files, err := parse(e, "show", args, func(fs *flag.FlagSet) {
		fs.IntVar(&maxOrder, "max-order", smart.DefaultMaxOrder, fmt.Sprintf("largest order a file may have, up to %d", smart.MaxMaxOrder))
	})
	if err == nil {
		err = checkStencilFiles(files, maxOrder)
	}
	if err != nil {
		return err
	}
	var errs []error
	for i, path := range files {
		s, err := loadStencil(e, path, smart.Limits{MaxOrder: maxOrder})
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

// checkStencilFiles refuses the stencil files and --max-order of show and features that cannot be
// read: no file, an order out of range, or standard input named twice.
func checkStencilFiles(files []string, maxOrder int) error {
	switch {
	case len(files) == 0:
		return usagef("give one or more stencil files")
	case maxOrder < 1 || maxOrder > smart.MaxMaxOrder:
		return usagef("--max-order is %d; use 1 to %d", maxOrder, smart.MaxMaxOrder)
	case stdinTwice(files):
		return usagef("'-' (standard input) is given twice; it can be read once")
	}
	return nil
}

// stdinTwice reports whether files names standard input ("-") more than once: the second read
// would find it empty.
func stdinTwice(files []string) bool {
	return len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" })) > 1
}
