package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"

	"smart/app"
	"smart/campaign"
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

func runCampaignPlan(ctx context.Context, e *env, args []string) error {
	var out string
	spec := campaign.DefaultSpec()
	fs, rest, err := parse(e, "campaign plan", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "new manifest directory")
		fs.IntVar(&spec.PerDims, "per-dims", spec.PerDims, "random stencils of each dimensionality")
		fs.IntVar(&spec.MaxOrder, "max-order", spec.MaxOrder, "orders 1 to this, in equal shares")
		fs.Uint64Var(&spec.Seed, "seed", spec.Seed, "seed of the stencils and of the uniform draws")
		fs.IntVar(&spec.Uniform, "uniform", spec.Uniform, "settings drawn uniformly per stencil and OC")
		fs.IntVar(&spec.Predicted, "predicted", spec.Predicted, "settings the runtime model predicts fastest, per stencil and OC")
		fs.StringVar(&spec.GPU, "gpu", spec.GPU, "GPU whose limits bound the settings and whose model predicts")
	})
	if err := cmp.Or(err, noArgs(rest, "; give the manifest's directory with --out")); err != nil {
		return err
	}
	// What --out holds is a value to change (exit 2), the file as much as the data set the
	// drawing checks for too.
	if out != "" {
		if err := campaign.CheckNew(out); err != nil {
			return usagef("--out: %w", err)
		}
	}
	drawing, _ := lazyProgress(e, "drawing the campaign")
	m, err := app.PlanCampaign(ctx, spec, out, drawing)
	if err != nil {
		return settingFlag(fs, err, nil)
	}
	fmt.Fprintf(e.stdout, "%s: %d stencils, %d variants (%d of them OCs without a valid setting); manifest %.12s\n", out, len(m.Entries), len(m.Items()), m.Invalid(), m.Hash())
	return nil
}

func runCampaignRun(ctx context.Context, e *env, args []string) error {
	var c app.Campaign
	var manifestDir string
	var asJSON bool
	fs, rest, err := parse(e, "campaign run", args, func(fs *flag.FlagSet) {
		fs.StringVar(&manifestDir, "manifest", defaultManifest, "campaign manifest directory")
		fs.StringVar(&c.Out, "out", "", "data set directory (default data/measured/GPU/campaign)")
		fs.StringVar(&c.Backend, "backend", "cuda", "cuda (measure on the GPU), or sim, sim:calibrated or sim:FILE (the analytic model with the literature's, the embedded calibration's or a calibration file's constants)")
		fs.StringVar(&c.GPU, "gpu", "", "catalogue name of the GPU (sim: required; cuda: found through NVML)")
		fs.DurationVar(&c.Time, "time", 0, "stop cleanly after this long (e.g. 9m); run again to resume")
		registerCUDA(fs, &c.CUDA, "timed samples per variant measured in full (cuda; at least 5)",
			"cuda: cut variants over this many times their stencil's fastest so far; 0: never")
		fs.BoolVar(&asJSON, "json", false, "print the call's summary as JSON")
	})
	if err := cmp.Or(err, noArgs(rest, "; give the manifest's directory with --manifest")); err != nil {
		return err
	}
	if err := cutNever(&c.CUDA); err != nil {
		return err
	}
	if err := c.Check(); err != nil {
		return settingFlag(fs, err, nil)
	}
	m, err := campaign.Load(manifestDir)
	if err != nil {
		return fmt.Errorf("--manifest %s: %w", manifestDir, err) // the default names a clone's
	}
	bar := newProgress(e, "campaign", len(m.Items()))
	c.Manifest, c.Notes, c.Progress = m, e.stderr, resumedProgress(bar)
	call, runErr := c.Run(ctx)
	if call.Out == "" { // no call began: the GPU, backend or data set was refused
		return settingFlag(fs, runErr, map[string]string{"Evaluator": "--backend"})
	}
	if call.Stopped {
		bar.Stop(bar.Done())
	}
	r := call.Report(m, runErr)
	stopped := ""
	var short *app.SettingError // --time too short for a variant: running it again would not resume
	switch {
	case errors.As(runErr, &short):
		runErr = settingFlag(fs, runErr, nil)
	case runErr != nil:
		runErr = fmt.Errorf("the call stopped after %d rows (run it again to resume): %w", call.Rows, runErr)
	case r.Stopped:
		stopped = "stopped by --time: run it again to resume"
	}
	if err := printOut(e, asJSON, r, then(r.WriteText, stopped)); err != nil {
		return errors.Join(err, runErr)
	}
	return runErr // unjoined: a usage error names the subcommand's help
}

func runCampaignStatus(ctx context.Context, e *env, args []string) error {
	var manifestDir string
	var asJSON bool
	_, dirs, err := parse(e, "campaign status", args, func(fs *flag.FlagSet) {
		fs.StringVar(&manifestDir, "manifest", defaultManifest, "campaign manifest directory")
		fs.BoolVar(&asJSON, "json", false, "print the status as JSON")
	})
	if err != nil {
		return err
	}
	m, err := campaign.Load(manifestDir)
	if err != nil {
		return fmt.Errorf("--manifest %s: %w", manifestDir, err) // the default names a clone's
	}
	if len(dirs) == 0 {
		var others []string
		dirs, others = app.CampaignDirsOf(m.Hash())
		for _, d := range others {
			fmt.Fprintf(e.stderr, "%s is left out: it was measured from another manifest (give it with that manifest)\n", d)
		}
		if len(dirs) == 0 && !asJSON {
			fmt.Fprintf(e.stdout, "no campaign measured yet: no data set of manifest %.12s (%d stencils) matches %s\n", m.Hash(), len(m.Entries), app.CampaignDir("*"))
			return nil
		}
	}
	out, err := m.Status(ctx, dirs)
	if err != nil {
		return err
	}
	return printOut(e, asJSON, out, out.WriteTables)
}
