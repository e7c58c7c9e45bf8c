package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"path/filepath"

	"smart/app"
	"smart/campaign"
	"smart/internal/atomicfile"
)

var campaignCommands = []command{
	{"plan", "draw a campaign manifest: random stencils and the settings to measure", runCampaignPlan},
	{"run", "measure the manifest's next unmeasured variants on this GPU, for a while", runCampaignRun},
	{"status", "stencils measured per GPU, and each call's rows per minute", runCampaignStatus},
}

// defaultManifest is where the repository keeps the campaign's manifest.
const defaultManifest = "data/campaign"

func runCampaign(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintln(e.stdout, "Usage: smart campaign <subcommand> [flags]\n\nThe measurement campaign: a manifest of random stencils and of the settings to measure for")
		fmt.Fprintln(e.stdout, "each, drawn once and committed (data/campaign), measured on lent GPUs a stretch at a time into")
		fmt.Fprintln(e.stdout, "data/measured/GPU/campaign, every call resuming the last and logged in its calls.csv.\n\nSubcommands:")
		for _, c := range campaignCommands {
			fmt.Fprintf(e.stdout, "  %-7s %s\n", c.name, c.summary)
		}
		fmt.Fprintln(e.stdout, "\nRun 'smart campaign <subcommand> --help' for its flags and an example.")
		if len(args) == 0 {
			return usagef("name a subcommand")
		}
		return nil
	}
	for _, c := range campaignCommands {
		if c.name == args[0] {
			return ofSubcommand("campaign", c.name, c.run(ctx, e, args[1:]))
		}
	}
	return usagef("unknown subcommand %q; the subcommands are plan, run and status", args[0])
}

// campaignPlanHelp is the description of --help, with examples.
const campaignPlanHelp = `
Draws a campaign manifest into DIR: random stencils of StencilMART's generator (Algorithm 1),
2-D and 3-D in turn, orders 1 to --max-order in equal shares, a quarter float32, on grids far
beyond the L2 cache, every tenth again on a grid 4x (2-D) or 8x (3-D) larger; and for every
stencil and OC the settings the embedded runtime model predicts fastest (measured on --gpu
where smart has such a model, simulated otherwise) and settings drawn uniformly. Everything is
seeded: the same flags draw the same manifest. DIR must not hold a manifest; one being measured
is never rewritten (data sets name it by its hash). The default campaign takes a few minutes.

Example:
  smart campaign plan --per-dims 1 --out small-campaign`

// registerSpec fills spec from the flags, its values the defaults.
func registerSpec(fs *flag.FlagSet, spec *campaign.Spec) {
	fs.IntVar(&spec.PerDims, "per-dims", spec.PerDims, "random stencils of each dimensionality")
	fs.IntVar(&spec.MaxOrder, "max-order", spec.MaxOrder, "orders 1 to this, in equal shares")
	fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "seed of the stencils and of the uniform draws")
	fs.IntVar(&spec.Uniform, "uniform", spec.Uniform, "settings drawn uniformly per stencil and OC")
	fs.IntVar(&spec.Predicted, "predicted", spec.Predicted, "settings the runtime model predicts fastest, per stencil and OC")
	fs.StringVar(&spec.GPU, "gpu", spec.GPU, "GPU whose limits bound the settings and whose model predicts")
}

func runCampaignPlan(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "campaign plan", "--out DIR [flags]", campaignPlanHelp)
	out := fs.String("out", "", "new manifest directory")
	spec := campaign.DefaultSpec()
	registerSpec(fs, &spec)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required: the new manifest's directory")
	}
	if err := atomicfile.CheckDir(*out); err != nil {
		return fmt.Errorf("--out: %w", err) // before the minutes of drawing
	}
	bar := newProgress(e, "drawing the campaign", 1)
	m, err := app.PlanCampaign(ctx, spec, *out, func(done, total int) { bar.total = total; bar.Update(done) })
	if err != nil {
		return settingFlag(err, map[string]string{"GPU": "--gpu"})
	}
	fmt.Fprintf(e.stdout, "%s: %d stencils, %d variants (%d of them OCs without a valid setting); manifest %.12s\n", *out, len(m.Entries), len(m.Items()), m.Invalid(), m.Hash())
	return nil
}

// campaignRunHelp is the description of --help, with examples.
const campaignRunHelp = `
Measures the campaign manifest's variants that the GPU's campaign data set lacks, in the
manifest's order, until all are measured or --time has passed, and logs the call (start, end,
card, driver, rows) in the data set's calls.csv. The data set is data/measured/GPU/campaign
(GPU in lower case) unless --out names another; a data set started from another manifest is
refused. The cuda backend compiles ahead of the GPU and runs one harness process per stencil;
variants far slower than the fastest so far are cut short (--cut). The sim backend runs the
analytic model instead, to try a campaign without a GPU (rows say "simulated").

Examples:
  smart campaign plan --per-dims 2 --out try-campaign
  smart campaign run --manifest try-campaign --backend sim --gpu h100-sxm --out try-campaign-sim --time 30s`

// registerCampaign fills c from the flags; cut is --cut, where 0 is never.
func registerCampaign(fs *flag.FlagSet, c *app.Campaign, cut *float64) {
	fs.StringVar(&c.Out, "out", "", "data set directory (default data/measured/GPU/campaign)")
	fs.StringVar(&c.Backend, "backend", "cuda", "cuda (measure on the GPU) or sim (the analytic model)")
	fs.StringVar(&c.GPU, "gpu", "", "catalogue name of the GPU (sim: required; cuda: found through NVML)")
	fs.IntVar(&c.CUDA.Device, "device", 0, "NVML index of the GPU to measure on (cuda)")
	fs.DurationVar(&c.Time, "time", 0, "stop cleanly after this long (e.g. 9m); run again to resume")
	fs.IntVar(&c.CUDA.Reps, "reps", 5, "timed samples per variant measured in full (cuda; at least 5)")
	fs.Float64Var(cut, "cut", 3, "cuda: cut variants over this many times their stencil's fastest so far; 0: never")
	fs.StringVar(&c.CUDA.BuildDir, "build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
}

// campaignFlags names the flag of a setting app.Campaign refused.
func campaignFlags(err error) error {
	return settingFlag(err, map[string]string{"Time": "--time", "Cut": "--cut", "Backend": "--backend", "GPU": "--gpu", "BuildDir": "--build-dir"})
}

func runCampaignRun(ctx context.Context, e *env, args []string) error {
	var c app.Campaign
	var cut float64
	fs := newFlags(e, "campaign run", "[flags]", campaignRunHelp)
	manifestDir := fs.String("manifest", defaultManifest, "campaign manifest directory")
	registerCampaign(fs, &c, &cut)
	asJSON := fs.Bool("json", false, "print the call's summary as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	c.CUDA.Cut = cmp.Or(cut, -1)
	if err := c.Check(); err != nil {
		return campaignFlags(err)
	}
	m, err := campaign.Load(*manifestDir)
	if err != nil {
		return err
	}
	bar := newProgress(e, "campaign", len(m.Items()))
	c.Manifest, c.Notes, c.Progress = m, e.stderr, func(done, _ int) { bar.Update(done) }
	call, runErr := c.Run(ctx)
	if call.Out == "" { // the backend did not open
		return campaignFlags(runErr)
	}
	if call.Stopped {
		bar.Stop(0)
	}
	if err := printCampaignCall(e, call.Report(m, runErr), *asJSON); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("the call stopped after %d rows (run it again to resume): %w", call.Rows, runErr)
	}
	return nil
}

func printCampaignCall(e *env, r app.CampaignReport, asJSON bool) error {
	if asJSON {
		return writeJSON(e, r)
	}
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if r.Stopped {
		fmt.Fprintln(e.stdout, "stopped by --time: run it again to resume")
	}
	return nil
}

func runCampaignStatus(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "campaign status", "[DATA-SET-DIR...] [flags]", `
Reports, for each campaign data set (default: data/measured/*/campaign), how many of the
manifest's stencils are measured in full and in part, and every call logged in its calls.csv
with its rows per minute of wall time (the lent machine's start excluded).

Example:
  smart campaign status --manifest data/campaign`)
	manifestDir := fs.String("manifest", defaultManifest, "campaign manifest directory")
	asJSON := fs.Bool("json", false, "print the status as JSON")
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	m, err := campaign.Load(*manifestDir)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		dirs, _ = filepath.Glob(filepath.Join("data", "measured", "*", "campaign"))
		if len(dirs) == 0 && !*asJSON {
			fmt.Fprintf(e.stdout, "no campaign measured yet: no data set matches data/measured/*/campaign (manifest %.12s, %d stencils)\n", m.Hash(), len(m.Entries))
			return nil
		}
	}
	out, err := m.Status(ctx, dirs)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, out)
	}
	return out.WriteTables(e.stdout)
}
