package main

import (
	"context"
	"errors"
	"strings"

	"smart/catalog"
)

func runGPUs(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "gpus")
	asJSON := flags.Bool("json", false, "print the catalogue as JSON, sources included")
	catFile := flags.String("catalog", "", "GPU catalogue file merged over the embedded one")
	vendor := flags.String("vendor", "", "list only the GPUs of this vendor (NVIDIA or AMD)")
	arch := flags.String("arch", "", "list only the GPUs of this architecture, e.g. Ampere")
	rest, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("gpus takes no arguments, got %q", strings.Join(rest, " "))
	}
	cat, err := catalog.Load(*catFile)
	if err != nil {
		return err
	}
	gpus, err := cat.Select(*vendor, *arch)
	if err != nil {
		flag := "--vendor and --arch"
		if se := (*catalog.SelectError)(nil); errors.As(err, &se) && se.Field != "" {
			flag = "--" + se.Field
		}
		return usagef("%s: %w (smart gpus lists every GPU)", flag, err)
	}
	if *asJSON {
		return writeJSON(e, gpus)
	}
	return catalog.WriteTable(e.stdout, gpus)
}
