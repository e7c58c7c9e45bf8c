package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"io"

	"smart/catalog"
)

func runGPUs(ctx context.Context, e *env, args []string) error {
	var asJSON bool
	var catFile, vendor, arch string
	_, rest, err := parse(e, "gpus", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the catalogue as JSON, sources included")
		fs.StringVar(&catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
		fs.StringVar(&vendor, "vendor", "", "list only the GPUs of this vendor (NVIDIA or AMD)")
		fs.StringVar(&arch, "arch", "", "list only the GPUs of this architecture, e.g. Ampere")
	})
	if err := cmp.Or(err, noArgs(rest, "")); err != nil {
		return err
	}
	cat, err := catalog.Load(catFile)
	if err != nil {
		return err
	}
	gpus, err := cat.Select(vendor, arch)
	if err != nil {
		flag := "--vendor and --arch"
		if se := (*catalog.SelectError)(nil); errors.As(err, &se) && se.Field != "" {
			flag = "--" + se.Field
		}
		return usagef("%s: %w (smart gpus lists every GPU)", flag, err)
	}
	return printOut(e, asJSON, gpus, func(w io.Writer) error { return catalog.WriteTable(w, gpus) })
}
