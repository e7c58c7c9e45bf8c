package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"smart"
	"smart/campaign"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/internal/atomicfile"
	"smart/models/roofline"
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

func runCampaignPlan(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "campaign plan", "--out DIR [flags]", `
Draws a campaign manifest into DIR: random stencils of StencilMART's generator (Algorithm 1),
2-D and 3-D in turn, orders 1 to --max-order in equal shares, a quarter float32, on grids far
beyond the L2 cache, every tenth again on a grid 4x (2-D) or 8x (3-D) larger; and for every
stencil and OC the settings the embedded runtime model predicts fastest (measured on --gpu
where smart has such a model, simulated otherwise) and settings drawn uniformly. Everything is
seeded: the same flags draw the same manifest. DIR must not hold a manifest; one being measured
is never rewritten (data sets name it by its hash). The default campaign takes a few minutes.

Example:
  smart campaign plan --per-dims 1 --out small-campaign`)
	out := fs.String("out", "", "new manifest directory")
	def := campaign.DefaultSpec()
	perDims := fs.Int("per-dims", def.PerDims, "random stencils of each dimensionality")
	maxOrder := fs.Int("max-order", def.MaxOrder, "orders 1 to this, in equal shares")
	seed := fs.Uint64("seed", def.Seed, "seed of the stencils and of the uniform draws")
	uniform := fs.Int("uniform", def.Uniform, "settings drawn uniformly per stencil and OC")
	predicted := fs.Int("predicted", def.Predicted, "settings the runtime model predicts fastest, per stencil and OC")
	gpuName := fs.String("gpu", def.GPU, "GPU whose limits bound the settings and whose model predicts")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out DIR is required: the new manifest's directory")
	}
	if err := atomicfile.CheckDir(*out); err != nil {
		return fmt.Errorf("--out: %w", err) // before the minutes of drawing
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	gpu, err := cat.Lookup(*gpuName)
	if err != nil {
		return usagef("--gpu: %w", err)
	}
	ms, err := predict.Defaults()
	if err != nil {
		return err
	}
	spec := def
	spec.PerDims, spec.MaxOrder, spec.Seed, spec.Uniform, spec.Predicted, spec.GPU = *perDims, *maxOrder, *seed, *uniform, *predicted, gpu.Name
	bar := newProgress(e, "drawing the campaign", 1)
	m, err := campaign.Plan(ctx, spec, gpu, ms, func(done, total int) { bar.total = total; bar.Update(done) })
	if err != nil {
		return err
	}
	if err := m.Save(*out); err != nil {
		return err
	}
	items, invalid := 0, 0
	for _, it := range m.Items() {
		items++
		if it.Invalid != "" {
			invalid++
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d stencils, %d variants (%d of them OCs without a valid setting); manifest %.12s\n", *out, len(m.Entries), items, invalid, m.Hash())
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

func runCampaignRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "campaign run", "[flags]", `
Measures the campaign manifest's variants that the GPU's campaign data set lacks, in the
manifest's order, until all are measured or --time has passed, and logs the call (start, end,
card, driver, rows) in the data set's calls.csv. The data set is data/measured/GPU/campaign
(GPU in lower case) unless --out names another; a data set started from another manifest is
refused. The cuda backend compiles ahead of the GPU and runs one harness process per stencil;
variants far slower than the fastest so far are cut short (--cut). The sim backend runs the
analytic model instead, to try a campaign without a GPU (rows say "simulated").

Examples:
  smart campaign plan --per-dims 2 --out try-campaign
  smart campaign run --manifest try-campaign --backend sim --gpu h100-sxm --out try-campaign-sim --time 30s`)
	manifestDir := fs.String("manifest", defaultManifest, "campaign manifest directory")
	out := fs.String("out", "", "data set directory (default data/measured/GPU/campaign)")
	backend := fs.String("backend", "cuda", "cuda (measure on the GPU) or sim (the analytic model)")
	gpuName := fs.String("gpu", "", "catalogue name of the GPU (sim: required; cuda: found through NVML)")
	deviceIdx := fs.Int("device", 0, "NVML index of the GPU to measure on (cuda)")
	stopAfter := fs.Duration("time", 0, "stop cleanly after this long (e.g. 9m); run again to resume")
	reps := fs.Int("reps", 5, "timed samples per variant measured in full (cuda; at least 5)")
	cutFactor := fs.Float64("cut", 3, "cuda: cut variants over this many times their stencil's fastest so far; 0: never")
	buildDir := fs.String("build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	asJSON := fs.Bool("json", false, "print the call's summary as JSON")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if *stopAfter < 0 {
		return usagef("--time is %v; give a positive duration such as 9m", *stopAfter)
	}
	if *cutFactor != 0 && *cutFactor < 1.5 {
		return usagef("--cut is %v; give 0 (never) or a factor of at least 1.5, such as 3", *cutFactor)
	}
	start := time.Now()
	m, err := campaign.Load(*manifestDir)
	if err != nil {
		return err
	}
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	run := &campaign.Run{Manifest: m}
	var runner *cuda.Runner
	switch *backend {
	case "sim":
		if *gpuName == "" {
			return usagef("--gpu is required with --backend sim: the GPU to simulate (smart gpus lists them)")
		}
		gpu, err := cat.Lookup(*gpuName)
		if err != nil {
			return usagef("--gpu: %w", err)
		}
		run.GPU, run.Device, run.Source, run.Evaluator = gpu.Name, simDevice(gpu), smart.Simulated, roofline.Evaluator{Catalog: cat}
	case "cuda":
		g, err := openGPU(cat, *gpuName, *deviceIdx, *reps, *buildDir)
		if err != nil {
			return err
		}
		defer g.Close()
		runner = g.runner
		runner.Cut.Stencil = cmp.Or(*cutFactor, -1)
		run.GPU, run.Device, run.Source, run.Evaluator, run.Observer = g.gpu.Name, g.device, smart.Measured, runner, g.dev
		run.Batch = runner.BatchSize()
	default:
		return usagef("--backend is %q; use cuda or sim", *backend)
	}
	if *out == "" {
		*out = filepath.Join("data", "measured", strings.ToLower(run.GPU), "campaign")
	}
	run.Out = *out
	if *stopAfter > 0 {
		run.StopAfter = max(*stopAfter-time.Since(start), time.Nanosecond)
	}
	bar := newProgress(e, "campaign", len(m.Items()))
	run.Progress = func(done, _ int) { bar.Update(done) }
	call, runErr := run.Do(ctx)
	if call.Stopped {
		bar.Stop(0)
	}
	rep := campaignReport{Out: *out, Manifest: m.Hash(), GPU: call.GPU, Source: call.Source, Rows: call.Rows, OK: call.OK,
		Rows2D: call.Rows2D, Rows3D: call.Rows3D, Cut: call.Cut, Seconds: call.End.Sub(call.Start).Seconds(),
		RowsPerMin: call.RowsPerMinute(), StencilsDone: call.StencilsDone, Stencils: len(m.Entries), Stopped: call.Stopped,
		CompileS: call.CompileS, GPUS: call.GPUS, WaitS: call.WaitS, Compiles: call.Compiles, Starts: call.Starts}
	if runner != nil && runner.CopyBandwidth() > 0 {
		rep.CopyGBs = runner.CopyBandwidth()
		rec := dataset.CopyMeasurement{At: time.Now(), Device: run.Device.Name, GBs: rep.CopyGBs, UUID: run.Device.UUID, Rows: call.Rows}
		if err := dataset.AppendCopyBandwidth(*out, rec); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		rep.Error = runErr.Error()
	}
	if *asJSON {
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
