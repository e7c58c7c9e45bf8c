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
	return runSubcommand(ctx, e, "campaign", campaignCommands, args)
}

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
	fs := newFlags(e, "campaign plan")
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
	fs := newFlags(e, "campaign run")
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
	fs := newFlags(e, "campaign status")
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
