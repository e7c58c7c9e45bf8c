package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"smart"
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
	return printGPUs(e, gpus)
}

// printGPUs is the catalogue's table.
func printGPUs(e *env, gpus []smart.GPU) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tarch\tCC\tSMs\tmemory GB\tGB/s\tFP64 TF\tFP32 TF\t$/GPU-h\tinstance\t")
	for _, g := range gpus {
		cc, price, inst := g.ComputeCapability, "-", "-"
		if cc == "" {
			cc = "-"
		}
		if g.Price != nil {
			price = fmt.Sprintf("%.3f", g.Price.USDPerHour)
			inst = g.Price.Instance
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%g\t%g\t%g\t%g\t%s\t%s\t\n", g.Name, g.Arch, cc, g.SMs, g.MemoryGB, g.BandwidthGBs,
			g.FP64TFLOPS, g.FP32TFLOPS, price, inst)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "\nSources: every number cites the datasheet, whitepaper or CUDA Programming Guide table it comes from")
	fmt.Fprintln(e.stdout, "(smart gpus --json). Prices: on-demand, per GPU, with the provider, region and date read; - where not rented.")
	return nil
}
