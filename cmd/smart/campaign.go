package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"smart"
	"smart/app"
	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/predict"
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

// campaignPlanOpts are the flags of the command.
type campaignPlanOpts struct {
	out       string
	perDims   int
	maxOrder  int
	seed      uint64
	uniform   int
	predicted int
	gpuName   string
}

func (o *campaignPlanOpts) register(fs *flag.FlagSet, def campaign.Spec) {
	fs.StringVar(&o.out, "out", "", "new manifest directory")
	fs.IntVar(&o.perDims, "per-dims", def.PerDims, "random stencils of each dimensionality")
	fs.IntVar(&o.maxOrder, "max-order", def.MaxOrder, "orders 1 to this, in equal shares")
	fs.Uint64Var(&o.seed, "seed", def.Seed, "seed of the stencils and of the uniform draws")
	fs.IntVar(&o.uniform, "uniform", def.Uniform, "settings drawn uniformly per stencil and OC")
	fs.IntVar(&o.predicted, "predicted", def.Predicted, "settings the runtime model predicts fastest, per stencil and OC")
	fs.StringVar(&o.gpuName, "gpu", def.GPU, "GPU whose limits bound the settings and whose model predicts")
}

func runCampaignPlan(ctx context.Context, e *env, args []string) error {
	var o campaignPlanOpts
	fs := newFlags(e, "campaign plan", "--out DIR [flags]", campaignPlanHelp)
	def := campaign.DefaultSpec()
	o.register(fs, def)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if o.out == "" {
		return usagef("--out DIR is required: the new manifest's directory")
	}
	if err := atomicfile.CheckDir(o.out); err != nil {
		return fmt.Errorf("--out: %w", err) // before the minutes of drawing
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	gpu, err := cat.Lookup(o.gpuName)
	if err != nil {
		return usagef("--gpu: %w", err)
	}
	ms, err := predict.Defaults()
	if err != nil {
		return err
	}
	spec := def
	spec.PerDims, spec.MaxOrder, spec.Seed, spec.Uniform, spec.Predicted, spec.GPU = o.perDims, o.maxOrder, o.seed, o.uniform, o.predicted, gpu.Name
	bar := newProgress(e, "drawing the campaign", 1)
	m, err := campaign.Plan(ctx, spec, gpu, ms, func(done, total int) { bar.total = total; bar.Update(done) })
	if err != nil {
		return err
	}
	if err := m.Save(o.out); err != nil {
		return err
	}
	items, invalid := 0, 0
	for _, it := range m.Items() {
		items++
		if it.Invalid != "" {
			invalid++
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d stencils, %d variants (%d of them OCs without a valid setting); manifest %.12s\n", o.out, len(m.Entries), items, invalid, m.Hash())
	return nil
}

type campaignReport struct {
	Out          string         `json:"out"`
	Manifest     string         `json:"manifest"`
	GPU          string         `json:"gpu"`
	Source       smart.Source   `json:"source"`
	Rows         int            `json:"rows"`
	OK           int            `json:"ok"`
	Rows2D       int            `json:"rows_2d"`
	Rows3D       int            `json:"rows_3d"`
	Cut          int            `json:"cut"`
	Seconds      float64        `json:"seconds"`
	RowsPerMin   float64        `json:"rows_per_minute"`
	StencilsDone int            `json:"stencils_done"`
	Stencils     int            `json:"stencils"`
	Stopped      bool           `json:"stopped"`
	CopyGBs      float64        `json:"copy_gb_per_s,omitempty"`
	CompileS     float64        `json:"compile_s,omitempty"` // summed wall time of the compiler runs
	GPUS         float64        `json:"gpu_s,omitempty"`     // running variants, harness start-ups included
	WaitS        float64        `json:"wait_s,omitempty"`    // the GPU waiting for compiles
	Compiles     int            `json:"compiles,omitempty"`
	Starts       int            `json:"starts,omitempty"` // harness processes`
	Error        string         `json:"error,omitempty"`
	ByStatus     map[string]int `json:"-"`
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

// campaignRunOpts are the flags of the command.
type campaignRunOpts struct {
	manifestDir string
	out         string
	backend     string
	gpuName     string
	deviceIdx   int
	stopAfter   time.Duration
	reps        int
	cutFactor   float64
	buildDir    string
	asJSON      bool
}

func (o *campaignRunOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.manifestDir, "manifest", defaultManifest, "campaign manifest directory")
	fs.StringVar(&o.out, "out", "", "data set directory (default data/measured/GPU/campaign)")
	fs.StringVar(&o.backend, "backend", "cuda", "cuda (measure on the GPU) or sim (the analytic model)")
	fs.StringVar(&o.gpuName, "gpu", "", "catalogue name of the GPU (sim: required; cuda: found through NVML)")
	fs.IntVar(&o.deviceIdx, "device", 0, "NVML index of the GPU to measure on (cuda)")
	fs.DurationVar(&o.stopAfter, "time", 0, "stop cleanly after this long (e.g. 9m); run again to resume")
	fs.IntVar(&o.reps, "reps", 5, "timed samples per variant measured in full (cuda; at least 5)")
	fs.Float64Var(&o.cutFactor, "cut", 3, "cuda: cut variants over this many times their stencil's fastest so far; 0: never")
	fs.StringVar(&o.buildDir, "build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	fs.BoolVar(&o.asJSON, "json", false, "print the call's summary as JSON")
}

func runCampaignRun(ctx context.Context, e *env, args []string) error {
	var o campaignRunOpts
	fs := newFlags(e, "campaign run", "[flags]", campaignRunHelp)
	o.register(fs)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case o.stopAfter < 0:
		return usagef("--time is %v; give a positive duration such as 9m", o.stopAfter)
	case o.cutFactor != 0 && o.cutFactor < 1.5:
		return usagef("--cut is %v; give 0 (never) or a factor of at least 1.5, such as 3", o.cutFactor)
	}
	m, err := campaign.Load(o.manifestDir)
	if err != nil {
		return err
	}
	switch {
	case o.backend != app.Sim && o.backend != app.CUDA:
		return usagef("--backend is %q; use cuda or sim", o.backend)
	case o.backend == app.Sim && o.gpuName == "":
		return usagef("--gpu is required with --backend sim: the GPU to simulate (smart gpus lists them)")
	}
	bar := newProgress(e, "campaign", len(m.Items()))
	call, runErr := app.Campaign{Manifest: m, Backend: o.backend, GPU: o.gpuName, Out: o.out, Time: o.stopAfter, Notes: e.stderr,
		CUDA:     app.CUDAOptions{Device: o.deviceIdx, Reps: o.reps, BuildDir: o.buildDir, Cut: cmp.Or(o.cutFactor, -1)},
		Progress: func(done, _ int) { bar.Update(done) }}.Run(ctx)
	if call.Out == "" { // the backend did not open
		return settingFlag(runErr, map[string]string{"GPU": "--gpu", "BuildDir": "--build-dir"})
	}
	if call.Stopped {
		bar.Stop(0)
	}
	rep := campaignReport{Out: call.Out, Manifest: m.Hash(), GPU: call.GPU, Source: call.Source, Rows: call.Rows, OK: call.OK,
		Rows2D: call.Rows2D, Rows3D: call.Rows3D, Cut: call.Cut, Seconds: call.End.Sub(call.Start).Seconds(),
		RowsPerMin: call.RowsPerMinute(), StencilsDone: call.StencilsDone, Stencils: len(m.Entries), Stopped: call.Stopped,
		CompileS: call.CompileS, GPUS: call.GPUS, WaitS: call.WaitS, Compiles: call.Compiles, Starts: call.Starts, CopyGBs: call.CopyGBs}
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	if o.asJSON {
		if err := writeJSON(e, rep); err != nil {
			return err
		}
	} else {
		printCampaignCall(e.stdout, rep)
	}
	if runErr != nil {
		return fmt.Errorf("the call stopped after %d rows (run it again to resume): %w", call.Rows, runErr)
	}
	return nil
}

func printCampaignCall(w io.Writer, r campaignReport) {
	fmt.Fprintf(w, "%s: %d rows (%s on %s): %d ok, %d cut short; 2-D %d, 3-D %d\n", r.Out, r.Rows, r.Source, r.GPU, r.OK, r.Cut, r.Rows2D, r.Rows3D)
	fmt.Fprintf(w, "%.0f s, %.0f rows a minute; %d of %d stencils of the manifest done\n", r.Seconds, r.RowsPerMin, r.StencilsDone, r.Stencils)
	if r.Compiles > 0 {
		fmt.Fprintf(w, "time: compilers %.0f s in %d runs, GPU %.0f s (%d harness processes), waiting for compiles %.0f s\n", r.CompileS, r.Compiles, r.GPUS, r.Starts, r.WaitS)
	}
	if r.CopyGBs > 0 {
		fmt.Fprintf(w, "device-to-device copy: %.0f GB/s\n", r.CopyGBs)
	}
	if r.Stopped {
		fmt.Fprintln(w, "stopped by --time: run it again to resume")
	}
}

type campaignStatus struct {
	Out      string          `json:"out"`
	GPU      string          `json:"gpu"`
	Source   smart.Source    `json:"source"`
	Rows     int             `json:"rows"`
	Done     int             `json:"stencils_done"`
	Started  int             `json:"stencils_started"`
	Stencils int             `json:"stencils"`
	Calls    []campaign.Call `json:"calls"`
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
	out := []campaignStatus{}
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		meta, rows, err := dataset.ReadAll(dir)
		if err != nil {
			return err
		}
		if meta.Plan == nil || meta.Plan.Manifest != m.Hash() {
			return fmt.Errorf("%s was not measured from the manifest in %s", dir, *manifestDir)
		}
		calls, err := campaign.ReadCalls(dir)
		if err != nil {
			return err
		}
		s := campaignStatus{Out: dir, GPU: meta.Devices[0].GPU, Source: meta.Sources[0], Rows: len(rows), Stencils: len(m.Entries), Calls: calls}
		s.Done, s.Started = m.Progress(rows)
		out = append(out, s)
	}
	if *asJSON {
		return writeJSON(e, out)
	}
	for _, s := range out {
		fmt.Fprintf(e.stdout, "%s (%s, %s): %d rows; %d of %d stencils done, %d begun\n", s.Out, s.GPU, s.Source, s.Rows, s.Done, s.Stencils, s.Started-s.Done)
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  start\tminutes\trows\tok\tcut\t2-D\t3-D\trows/min\tcard")
		for _, c := range s.Calls {
			fmt.Fprintf(tw, "  %s\t%.1f\t%d\t%d\t%d\t%d\t%d\t%.0f\t%s\n", c.Start.Format("2006-01-02 15:04"), c.End.Sub(c.Start).Minutes(),
				c.Rows, c.OK, c.Cut, c.Rows2D, c.Rows3D, c.RowsPerMinute(), c.UUID)
		}
		tw.Flush()
	}
	return nil
}
