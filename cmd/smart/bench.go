package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"smart"
	"smart/catalog"
	"smart/dataset"
	"smart/dataset/cuda"
	"smart/dataset/gpuinfo"
	"smart/internal/atomicfile"
	"smart/models/roofline"
	"smart/space"
)

// defaultSimGPU is the GPU simulated when none is named: the A100 that StencilMART and the
// search space's default limits (smart.SM80) describe.
const defaultSimGPU = "A100-40GB"

func runBench(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "bench", "[STENCIL-FILE|DIR...] | --random N --dims D [flags] --out DIR", `
Measures stencils under optimization combinations (OCs) into a data set (StencilMART section
V-A): for every stencil and OC, --samples settings drawn uniformly at random from the valid
ones on the GPU, each evaluated once and appended to DIR/rows.csv as it finishes.

The backend is the GPU (cuda: NVIDIA driver needed, the device found through NVML) or the
analytic model (sim: rows say "simulated"; for trying the pipeline and for tests). Settings are
drawn from a seed, the stencil and the OC, so a run that is stopped (Ctrl-C, a lost node) and
started again with the same flags skips what is done and loses at most the variant in flight,
and --shard i/n splits the stencils so n machines share the work; join the shards with
'smart dataset merge'. --dry-run generates and checks everything and counts the work.

--setting measures the settings given instead of random ones (what smart predict or smart tune
recommends, say), on every stencil: k=v,... with a single --oc, or OC:k=v,... for any OC;
repeat it for more. A setting outside a stencil's search space is a row of status invalid with
the reason; if it fits none of the stencils nothing is measured.

Examples:
  smart bench --backend sim --random 10 --dims 3 --samples 10 --out runs/a100-sim
  smart bench stencils/ --oc ST,ST_RT,BASE --samples 50 --dry-run --out runs/mine   # needs a GPU
  smart bench data/stencils/j2d5pt.json --oc ST_RT --setting bx=64,by=4,shared=0,const=0,sd=2,sb=8,ufx=1,ufy=2 --out runs/j2d5pt-pick   # needs a GPU
  smart bench data/stencils/j3d7pt.json --setting BASE:bx=256,by=1,bz=1,shared=0,const=0 --setting TB:bx=32,by=8,bz=1,shared=1,const=0,tt=2 --out runs/two   # needs a GPU
  smart bench --random 500 --dims 2 --samples 20 --shard 1/4 --out runs/v100-2d-1   # needs a GPU; takes hours`)
	random := fs.Int("random", 0, "draw this many random stencils (StencilMART Algorithm 1) instead of reading files")
	dims := fs.Int("dims", 3, "dimensions of the random stencils, 2 or 3")
	orderMax := fs.Int("order-max", smart.DefaultMaxOrder, "largest order of the random stencils; orders 1 to this are drawn in turn")
	seed := fs.Uint64("seed", 1, "seed of the random stencils and of the settings drawn")
	samples := fs.Int("samples", 20, "settings drawn per stencil and OC")
	ocList := fs.String("oc", "all", "OCs to measure, comma-separated (e.g. BASE,ST,ST_RT), or all")
	backend := fs.String("backend", "cuda", "cuda (measure on the GPU) or sim (the analytic model)")
	gpuName := fs.String("gpu", "", "catalogue name of the GPU (sim: default "+defaultSimGPU+"; cuda: found through NVML)")
	deviceIdx := fs.Int("device", 0, "NVML index of the GPU to measure on (cuda)")
	catalogFile := fs.String("catalog", "", "GPU catalogue file merged over the built-in one")
	out := fs.String("out", "", "data set directory (created, or resumed when it holds this run)")
	shardFlag := fs.String("shard", "", "run only shard i of n (e.g. 2/4), split by stencil")
	batch := fs.Int("batch", 0, "variants handed to the backend at once, where it batches (default: 32, or for cuda enough to keep every nvcc job busy)")
	stopAfter := fs.Duration("time", 0, "stop cleanly after this long (e.g. 9m), drawing the settings included, keeping the variants measured so far; run again to resume")
	reps := fs.Int("reps", 5, "timed samples per variant (cuda; at least 5), after its checked run")
	cutFactor := fs.Float64("cut", 3, "cuda: a variant over this many times its stencil's fastest so far (and 1.1x its OC's)\nis timed by its checked run alone, or stopped after a slow first launch; 0: never")
	buildDir := fs.String("build-dir", "", "nvcc build cache (cuda; default: the user cache directory)")
	dryRun := fs.Bool("dry-run", false, "generate and check everything, count the work, run nothing")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	var settings repeatedFlag
	fs.Var(&settings, "setting", "measure this setting instead of random ones: k=v,... with one --oc, or OC:k=v,...; repeat for more")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	start := time.Now() // --time counts drawing the settings too (minutes for many stencils)
	if len(settings) > 0 && flagsGiven(fs, "samples") {
		return usagef("give --samples or --setting, not both: the settings given are measured instead of random ones")
	}
	if *out == "" {
		return usagef("--out DIR is required: the data set directory")
	}
	if err := atomicfile.CheckDir(*out); err != nil {
		return fmt.Errorf("--out: %w", err) // before drawing the settings, which can take minutes
	}
	if *samples < 1 {
		return usagef("--samples is %d; draw at least 1 setting per OC", *samples)
	}
	if *batch < 0 {
		return usagef("--batch is %d; use 1 or more, or 0 for the backend's own", *batch)
	}
	if *cutFactor != 0 && *cutFactor < 1.5 {
		return usagef("--cut is %v; give 0 (never) or a factor of at least 1.5, such as 3", *cutFactor)
	}
	if *stopAfter < 0 {
		return usagef("--time is %v; give a positive duration such as 9m", *stopAfter)
	}
	shard, err := dataset.ParseShard(*shardFlag)
	if err != nil {
		return usagef("--shard: %v", err)
	}
	ocs, err := parseOCs(*ocList)
	if err != nil {
		return usagef("--oc: %v", err)
	}
	var variants []dataset.Variant
	if len(settings) > 0 {
		if !flagsGiven(fs, "oc") {
			ocs = nil // --setting names the OC unless --oc is given
		}
		if variants, err = parseVariants(settings, ocs); err != nil {
			return usagef("--setting: %v", err)
		}
	}
	stencils, err := benchStencils(e, paths, *random, *dims, *orderMax, *seed)
	if err != nil {
		return err
	}
	cat, err := catalog.Load(*catalogFile)
	if err != nil {
		return err
	}

	var gpu smart.GPU
	var device dataset.Device
	var source smart.Source
	var eval smart.Evaluator
	var observer dataset.Observer
	switch *backend {
	case "sim":
		if *gpuName == "" {
			*gpuName = defaultSimGPU
			fmt.Fprintf(e.stderr, "simulating the %s; name another GPU with --gpu (smart gpus lists them)\n", defaultSimGPU)
		}
		if gpu, err = cat.Lookup(*gpuName); err != nil {
			return usagef("--gpu: %w", err)
		}
		source = smart.Simulated
		device = simDevice(gpu)
		eval = roofline.Evaluator{Catalog: cat}
	case "cuda":
		g, err := openGPU(cat, *gpuName, *deviceIdx, *reps, *buildDir)
		if err != nil {
			return err
		}
		defer g.Close()
		g.runner.Cut.Stencil = cmp.Or(*cutFactor, -1)
		gpu, device, source, observer, eval = g.gpu, g.device, smart.Measured, g.dev, g.runner
	default:
		return usagef("--backend is %q; use cuda or sim", *backend)
	}

	if err := gpu.RunsCUDA(); err != nil {
		return usagef("--gpu: %v", err)
	}
	var plan *dataset.Plan
	if variants != nil {
		if plan, err = dataset.NewExplicitPlan(stencils, variants); err != nil {
			return usagef("--setting: %v", err)
		}
	} else {
		plan, err = dataset.NewPlan(stencils, ocs, *samples, *seed)
	}
	if err != nil {
		return err
	}
	meta := dataset.Meta{Sources: []smart.Source{source}, Devices: []dataset.Device{device},
		Params: dataset.StencilParams(), Plan: plan, Shard: shard}

	exists, err := dataset.CheckRun(*out, meta)
	if err != nil {
		return err
	}
	if cr, ok := eval.(*cuda.Runner); ok && exists && cr.Cut.Stencil > 0 {
		if old, err := dataset.ReadMeta(*out); err == nil && old.Format == dataset.FormatV1 {
			// Its rows.csv has no column to mark a cut row.
			fmt.Fprintf(e.stderr, "%s is a data set of format %s: its variants are measured in full (--cut 0)\n", *out, dataset.FormatV1)
			cr.Cut.Stencil = -1
		}
	}
	var items []dataset.Item
	if exists {
		// A resumed run measures the settings it drew when it started.
		if items, err = dataset.LoadItems(*out, stencils); err != nil {
			return err
		}
	}
	drawn := items == nil
	if drawn {
		inShard := 0
		for _, st := range stencils {
			if plan.InShard(st.ID(), shard) {
				inShard++
			}
		}
		bar := newProgress(e, "drawing settings", inShard)
		if items, err = planItems(ctx, plan, stencils, gpu, shard, bar); err != nil {
			return err
		}
		if variants != nil && len(items) > 0 && !slices.ContainsFunc(items, func(it dataset.Item) bool { return it.Invalid == "" }) {
			it := items[0]
			return usagef("--setting: %s %s fits no stencil: %s: %s", it.OC, it.Setting, it.Stencil.Name, it.Invalid)
		}
	}

	if *dryRun {
		done := 0
		var torn *dataset.Torn
		if exists {
			if done, torn, err = dataset.CountDone(*out, gpu.Name, items); err != nil {
				return err
			}
		}
		return printDryRun(e, *asJSON, plan, shard, gpu, items, done, torn, *out)
	}

	w, torn, err := dataset.OpenWriter(*out, meta)
	if err != nil {
		return err
	}
	defer w.Close()
	if torn != nil {
		fmt.Fprintf(e.stderr, "resuming %s: %s; it was cut off and will be measured again\n", *out, torn)
	}
	if drawn {
		if err := dataset.SaveItems(*out, items); err != nil {
			return err
		}
	}
	for _, st := range stencils {
		if plan.InShard(st.ID(), shard) {
			if err := w.AddStencil(st); err != nil {
				return err
			}
		}
	}
	bar := newProgress(e, "bench", len(items))
	if cr, ok := eval.(*cuda.Runner); ok && *batch == 0 {
		*batch = cr.BatchSize()
	}
	stop := *stopAfter
	if stop > 0 {
		stop = max(stop-time.Since(start), time.Nanosecond) // spent already: stop before the first batch
	}
	r := &dataset.Runner{Evaluator: eval, GPU: gpu.Name, Batch: *batch, Observer: observer, StopAfter: stop,
		Progress: func(done, _ int) { bar.Update(done) }}
	sum, runErr := r.Run(ctx, w, items)
	if sum.Stopped {
		bar.Stop(sum.Skipped + sum.Written)
	}
	if cr, ok := eval.(*cuda.Runner); ok && cr.CopyBandwidth() > 0 {
		fmt.Fprintf(e.stderr, "device-to-device copy on %s: %.0f GB/s (bytes read plus written)\n", device.Name, cr.CopyBandwidth())
		rec := dataset.CopyMeasurement{At: time.Now(), Device: device.Name, GBs: cr.CopyBandwidth(), UUID: device.UUID, Rows: w.Len()}
		if err := dataset.AppendCopyBandwidth(*out, rec); err != nil && runErr == nil {
			runErr = err
		}
	}
	if err := w.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if err := printBenchSummary(e, *asJSON, *out, source, gpu, sum); err != nil {
		return err
	}
	if runErr != nil {
		return fmt.Errorf("the run stopped after %d of %d variants (run the same command again to resume): %w", sum.Skipped+sum.Written, sum.Total, runErr)
	}
	return nil
}

// deviceGPU is the catalogue entry of the device NVML reports as name: --gpu (given) names it
// where the catalogue does not know the name, and may not relabel a device the catalogue knows
// as another GPU (the rows would say they were measured on a GPU they were not).
func deviceGPU(cat *catalog.Catalog, given, name string, index int) (smart.GPU, error) {
	found, err := cat.Lookup(name)
	switch {
	case given == "" && err != nil:
		return smart.GPU{}, fmt.Errorf("GPU %d reports itself as %q: %v; name it with --gpu or add it with --catalog", index, name, err)
	case given == "":
		return found, nil
	}
	g, gerr := cat.Lookup(given)
	switch {
	case gerr != nil:
		return smart.GPU{}, usagef("--gpu: %w", gerr)
	case err == nil && found.Name != g.Name:
		return smart.GPU{}, usagef("--gpu %s, but GPU %d is %q, the catalogue's %s: the rows would name the wrong GPU; leave --gpu out", given, index, name, found.Name)
	}
	return g, nil
}

// cudaDevice describes the GPU NVML found, the catalogue's gpu, for a data set's meta.json.
func cudaDevice(info gpuinfo.Info, gpu smart.GPU) dataset.Device {
	return dataset.Device{GPU: gpu.Name, Name: info.Name, UUID: info.UUID, Driver: info.Driver, CUDA: info.CUDA, CC: info.ComputeCapability}
}

// simDevice describes the analytic model of gpu as a data set's device.
func simDevice(gpu smart.GPU) dataset.Device {
	return dataset.Device{GPU: gpu.Name, Name: "analytic model (roofline)"}
}

// gpuBackend is an NVIDIA GPU found through NVML and the runner that measures on it.
type gpuBackend struct {
	nv     *gpuinfo.NVML
	dev    *gpuinfo.Device
	gpu    smart.GPU      // its catalogue entry
	device dataset.Device // its description for a data set
	runner *cuda.Runner
}

// openGPU opens GPU index through NVML and sets up its runner; given names the catalogue entry
// where the catalogue does not know the device.
func openGPU(cat *catalog.Catalog, given string, index, reps int, buildDir string) (*gpuBackend, error) {
	nv, err := gpuinfo.Open()
	if err != nil {
		return nil, err
	}
	b := &gpuBackend{nv: nv}
	if b.dev, err = nv.Device(index); err != nil {
		nv.Close()
		return nil, err
	}
	info := b.dev.Info()
	if b.gpu, err = deviceGPU(cat, given, info.Name, index); err != nil {
		nv.Close()
		return nil, err
	}
	b.device = cudaDevice(info, b.gpu)
	if b.runner, err = cudaRunner(info, b.gpu, reps, buildDir); err != nil {
		nv.Close()
		return nil, err
	}
	return b, nil
}

// Close ends the runner's harness processes and compiles, and NVML.
func (b *gpuBackend) Close() error {
	b.runner.Close()
	return b.nv.Close()
}

// cudaRunner sets up the nvcc-and-CUDA-events backend for the device NVML found.
func cudaRunner(info gpuinfo.Info, gpu smart.GPU, reps int, buildDir string) (*cuda.Runner, error) {
	nvcc, err := cuda.FindNVCC()
	if err != nil {
		return nil, err
	}
	arch, err := cuda.ArchOf(info.ComputeCapability)
	if err != nil {
		return nil, fmt.Errorf("GPU %s: %w", info.Name, err)
	}
	if buildDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no build directory: %w; name one with --build-dir", err)
		}
		buildDir = filepath.Join(dir, "smart", "nvcc")
	}
	return &cuda.Runner{Compiler: cuda.NVCC(nvcc, arch), CacheDir: buildDir, Device: info.Index, GPU: gpu.Name, Name: info.Name, Reps: reps}, nil
}

// planItems draws the plan's settings stencil by stencil, so the bar moves while the search
// spaces are generated (the slow part).
func planItems(ctx context.Context, plan *dataset.Plan, stencils []*smart.Stencil, gpu smart.GPU, shard *dataset.Shard, bar *progress) ([]dataset.Item, error) {
	built, perStencil := 0, max(len(plan.OCs), len(plan.Settings))
	spaces := func(ctx context.Context, st *smart.Stencil, oc smart.Combination, g smart.GPU) (*space.Space, error) {
		// Called before the stencil's space is built: report the stencils finished so far.
		bar.Update(built / perStencil)
		built++
		return space.ForStencilContext(ctx, st, oc, g)
	}
	items, err := plan.Items(ctx, stencils, gpu, spaces, shard)
	if err != nil {
		return nil, err
	}
	bar.Update(bar.total)
	return items, nil
}

// repeatedFlag is a flag that may be given many times; each value is kept whole (settings hold
// commas).
type repeatedFlag []string

func (r *repeatedFlag) String() string { return strings.Join(*r, " ") }

func (r *repeatedFlag) Set(v string) error {
	*r = append(*r, v)
	return nil
}

// parseVariants reads --setting values: OC:k=v,... or, when ocs holds a single OC, k=v,...
func parseVariants(texts []string, ocs []smart.Combination) ([]dataset.Variant, error) {
	var out []dataset.Variant
	for _, text := range texts {
		var oc smart.Combination
		name, rest, named := strings.Cut(text, ":")
		switch {
		case named:
			var err error
			if oc, err = smart.ParseCombination(name); err != nil {
				return nil, fmt.Errorf("%s: %w", text, err)
			}
			text = rest
		case len(ocs) == 1:
			oc = ocs[0]
		default:
			return nil, fmt.Errorf("%s names no OC: write OC:k=v,... or give one --oc", text)
		}
		set, err := smart.ParseSetting(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", text, err)
		}
		out = append(out, dataset.Variant{OC: oc, Setting: set})
	}
	return out, nil
}

// parseOCs reads "all" or a comma-separated list of OC names.
func parseOCs(list string) ([]smart.Combination, error) {
	if strings.EqualFold(strings.TrimSpace(list), "all") {
		return smart.Combinations(), nil
	}
	var ocs []smart.Combination
	for _, name := range strings.Split(list, ",") {
		if strings.TrimSpace(name) == "" {
			// ParseCombination reads "" as BASE: an empty $OCS must not narrow a run to it.
			return nil, fmt.Errorf("the list %q has an empty name; give OCs such as BASE,ST_RT, or all", list)
		}
		oc, err := smart.ParseCombination(name)
		if err != nil {
			return nil, err
		}
		if slices.Contains(ocs, oc) {
			return nil, fmt.Errorf("%s is listed twice", oc)
		}
		ocs = append(ocs, oc)
	}
	return ocs, nil
}

// benchStencils reads the stencil files (directories: every *.json in them) or draws random ones.
func benchStencils(e *env, paths []string, random, dims, orderMax int, seed uint64) ([]*smart.Stencil, error) {
	switch {
	case random > 0 && len(paths) > 0:
		return nil, usagef("give stencil files or --random N, not both")
	case random > 0:
		if dims != 2 && dims != 3 {
			return nil, usagef("--dims is %d; use 2 or 3", dims)
		}
		sts, err := dataset.RandomStencils(random, dims, orderMax, seed)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return sts, nil
	case len(paths) == 0:
		return nil, usagef("give stencil files or directories, or --random N")
	}
	files, err := loadStencils(e, paths, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, err
	}
	var sts []*smart.Stencil
	seen := map[string]string{}
	for _, f := range files {
		if prev, dup := seen[f.stencil.ID()]; dup {
			return nil, fmt.Errorf("stencil files %s and %s hold the same stencil", prev, f.path)
		}
		seen[f.stencil.ID()] = f.path
		sts = append(sts, f.stencil)
	}
	return sts, nil
}

type dryRunReport struct {
	Out       string         `json:"out"`
	GPU       string         `json:"gpu"`
	Stencils  int            `json:"stencils"`
	InShard   int            `json:"stencils_in_shard"`
	Shard     string         `json:"shard,omitempty"`
	Variants  int            `json:"variants"`
	Invalid   int            `json:"invalid"` // OCs with no valid setting, recorded without running
	Done      int            `json:"done"`    // already in the data set
	ToRun     int            `json:"to_run"`
	PerOC     map[string]int `json:"per_oc"`
	TornLine  int            `json:"torn_line,omitempty"`
	PlanSeed  uint64         `json:"seed"`
	PlanDraws int            `json:"samples"`
}

func printDryRun(e *env, asJSON bool, plan *dataset.Plan, shard *dataset.Shard, gpu smart.GPU, items []dataset.Item, done int, torn *dataset.Torn, out string) error {
	r := dryRunReport{Out: out, GPU: gpu.Name, Stencils: len(plan.Stencils), Variants: len(items), Done: done,
		ToRun: len(items) - done, PerOC: map[string]int{}, PlanSeed: plan.Seed, PlanDraws: plan.Samples}
	inShard := map[string]bool{}
	for _, it := range items {
		inShard[it.Stencil.ID()] = true
		r.PerOC[it.OC.String()]++
		if it.Invalid != "" {
			r.Invalid++
		}
	}
	r.InShard = len(inShard)
	if shard != nil {
		r.Shard = shard.String()
	}
	if torn != nil {
		r.TornLine = torn.Line
	}
	if asJSON {
		return writeJSON(e, r)
	}
	fmt.Fprintf(e.stdout, "dry run: nothing measured, nothing written to %s\n", out)
	fmt.Fprintf(e.stdout, "GPU %s; %d stencils", gpu.Name, r.Stencils)
	if shard != nil {
		fmt.Fprintf(e.stdout, ", %d in shard %s", r.InShard, shard)
	}
	fmt.Fprintf(e.stdout, "; %d settings per OC, seed %d\n", plan.Samples, plan.Seed)
	fmt.Fprintf(e.stdout, "%d variants: %d already in the data set, %d to run", r.Variants, done, r.ToRun)
	if r.Invalid > 0 {
		fmt.Fprintf(e.stdout, " (%d of them OCs with no valid setting, recorded as invalid)", r.Invalid)
	}
	fmt.Fprintln(e.stdout)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OC\tvariants")
	for _, oc := range plan.OCs {
		fmt.Fprintf(tw, "%s\t%d\n", oc, r.PerOC[oc.String()])
	}
	return tw.Flush()
}

type benchReport struct {
	Out        string         `json:"out"`
	Source     smart.Source   `json:"source"`
	GPU        string         `json:"gpu"`
	Variants   int            `json:"variants"`
	Skipped    int            `json:"skipped"`
	Written    int            `json:"written"`
	ByStatus   map[string]int `json:"by_status"`
	Cut        map[string]int `json:"cut,omitempty"` // ok rows cut short, by cut
	Seconds    float64        `json:"seconds"`
	RowsPerSec float64        `json:"rows_per_second"`
	// Stopped says --time ended the run with variants left; the same command resumes it.
	Stopped bool `json:"stopped"`
}

func printBenchSummary(e *env, asJSON bool, out string, source smart.Source, gpu smart.GPU, s dataset.Summary) error {
	r := benchReport{Out: out, Source: source, GPU: gpu.Name, Variants: s.Total, Skipped: s.Skipped, Written: s.Written,
		ByStatus: map[string]int{}, Seconds: s.Elapsed.Seconds(), Stopped: s.Stopped}
	for st, n := range s.ByStatus {
		r.ByStatus[string(st)] = n
	}
	for c, n := range s.Cut {
		if r.Cut == nil {
			r.Cut = map[string]int{}
		}
		r.Cut[string(c)] = n
	}
	if s.Elapsed > 0 {
		r.RowsPerSec = float64(s.Written) / s.Elapsed.Seconds()
	}
	if asJSON {
		return writeJSON(e, r)
	}
	fmt.Fprintf(e.stdout, "%s: %d of %d variants written (%s on %s), %d were already there\n", out, s.Written, s.Total, source, gpu.Name, s.Skipped)
	var parts []string
	for _, st := range []smart.Status{smart.StatusOK, smart.StatusCompileError, smart.StatusLaunchError, smart.StatusWrongResult, smart.StatusTimeout, smart.StatusInvalid} {
		if n := s.ByStatus[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(e.stdout, "status: %s\n", strings.Join(parts, ", "))
	}
	if n := s.Cut[smart.CutSlow] + s.Cut[smart.CutStopped]; n > 0 {
		fmt.Fprintf(e.stdout, "cut short (far slower than the fastest so far): %d timed by their checked run, %d stopped after their first launch\n",
			s.Cut[smart.CutSlow], s.Cut[smart.CutStopped])
	}
	if s.ReadingErrors > 0 {
		fmt.Fprintf(e.stdout, "NVML readings failed for %d batches; their rows have none\n", s.ReadingErrors)
	}
	fmt.Fprintf(e.stdout, "%s, %.0f rows/s\n", s.Elapsed.Round(time.Millisecond), r.RowsPerSec)
	if s.Stopped {
		fmt.Fprintf(e.stdout, "stopped by --time with %d variants left: run the same command again to resume\n", s.Total-s.Skipped-s.Written)
	}
	return nil
}
