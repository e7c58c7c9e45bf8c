package main

import (
	"context"
	"errors"
	"strings"

	"smart/catalog"
)

// gpusHelp is the description of --help, with examples.
const gpusHelp = `
Lists the GPU catalogue: name, architecture, compute capability, SMs (compute units on AMD),
memory, DRAM bandwidth, FP64 and FP32 peaks and the on-demand price per GPU-hour where the GPU is
rented. Every number cites its source: --json prints the full entries with their "sources".
--vendor and --arch keep the GPUs of one vendor (NVIDIA, AMD) or architecture (Kepler, ...,
Blackwell), ignoring case. A K80 entry is one of the board's two GK210 GPUs, the device CUDA and
nvidia-smi show.
--catalog merges your own file over the embedded one (same format as data/gpus.json; an entry
named like a catalogued GPU overrides the fields it gives, and must cite a source for each).

Examples:
  smart gpus
  smart gpus --arch hopper
  smart gpus --json | jq '.[] | select(.name == "A100-40GB") | .sources'
  smart gpus --catalog docs/examples/mygpus.json`

func runGPUs(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "gpus", "[--vendor NAME] [--arch NAME] [--json] [--catalog FILE]", gpusHelp)
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
