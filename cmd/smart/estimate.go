package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/models/roofline"
	"smart/space"
)

// estimateOutput is what smart estimate --json prints.
type estimateOutput struct {
	Stencil        string            `json:"stencil"`
	StencilID      string            `json:"stencil_id"`
	GPU            string            `json:"gpu"`
	OC             smart.Combination `json:"oc"`
	Setting        smart.Setting     `json:"setting"`
	DefaultSetting bool              `json:"default_setting"` // true when --setting was not given
	Source         smart.Source      `json:"source"`
	// Constants says which of the model's constants gave the estimate: "calibrated" (fitted to
	// smart's measurements, with Interval from their held-out errors) or "literature".
	Constants string            `json:"constants"`
	Estimate  roofline.Estimate `json:"estimate"`
	Interval  *smart.Interval   `json:"interval,omitempty"`
}

// estimateHelp is the description of --help, with examples.
const estimateHelp = `
Prints the analytic model's time per step of a stencil under an optimization combination and
setting on a catalogued NVIDIA GPU, with its breakdown: DRAM bytes, FLOPs, loads per point,
occupancy and what limits it, waves of blocks, and the bound (memory, on-chip, compute, latency,
launch, or the copy floor: no step is faster than reading and writing its grid once per launch at
the GPU's copy bandwidth). The number is simulated, not measured. Its constants are those smart
calibrate fitted to smart's measurements (data/calibration/stencil.json), with the interval their
held-out errors give; --literature uses the architecture literature's constants instead.
Without --setting it uses a default setting for the OC: blocks of 32x8 (x1 in 3-D), shared memory
on, constant-memory coefficients, merging and unroll factors 1, streaming along the outermost
axis (with a block size of 1 along it, so 32x1 in 2-D) and sb = extent/8 rounded down to a power
of two, tt = 2. A setting outside the search space of the stencil, OC and GPU gets the error
smart space --check gives for it.

Examples:
  smart estimate j3d7pt --gpu a100 --oc ST_TB
  smart estimate data/stencils/j3d7pt.json --gpu "NVIDIA A100-PCIE-40GB" --oc ST_BM --setting bx=64,by=4,bz=1,shared=1,const=1,sd=3,sb=64,ufx=1,ufy=1,ufz=1,bmx=1,bmy=2,bmz=1 --json`

// estimateOpts are the flags of the command.
type estimateOpts struct {
	gpuName     string
	ocName      string
	settingText string
	asJSON      bool
	catFile     string
	literature  bool
}

func (o *estimateOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.gpuName, "gpu", "", "GPU name or alias from the catalogue (smart gpus)")
	fs.StringVar(&o.ocName, "oc", "", "optimization combination, e.g. ST_BM_TB or BASE")
	fs.StringVar(&o.settingText, "setting", "", "parameter setting k=v,... (default: see above)")
	fs.BoolVar(&o.asJSON, "json", false, "print the estimate as JSON")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.BoolVar(&o.literature, "literature", false, "use the literature's constants, not the calibrated ones")
}

func runEstimate(ctx context.Context, e *env, args []string) error {
	var o estimateOpts
	flags := newFlags(e, "estimate", "FILE --gpu NAME --oc OC [--setting k=v,...] [--json] [--catalog FILE]", estimateHelp)
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) != 1:
		return usagef("give one stencil file")
	case o.gpuName == "":
		return usagef("give the GPU with --gpu (smart gpus lists them)")
	case o.ocName == "":
		return usagef("give the optimization combination with --oc, e.g. --oc ST_TB or --oc BASE")
	}
	st, oc, g, err := o.inputs(e, files[0])
	if err != nil {
		return err
	}
	setting := roofline.DefaultSetting(st, oc)
	if o.settingText != "" {
		if setting, err = smart.ParseSetting(o.settingText); err != nil {
			return usagef("--setting: %v", err)
		}
	}
	out := estimateOutput{Stencil: st.Name, StencilID: st.ID(), GPU: g.Name, OC: oc, Setting: setting,
		DefaultSetting: o.settingText == "", Source: smart.Simulated, Constants: "literature"}
	var cal *calibrate.File
	if !o.literature {
		if cal, err = calibrate.Default(); err != nil {
			return err
		}
		out.Constants = "calibrated"
	}
	est, err := estimate(ctx, st, oc, setting, g, cal)
	if err != nil && o.settingText == "" {
		return fmt.Errorf("the default setting %s: %w; give one that fits with --setting", setting, err)
	}
	if err != nil {
		return usagef("--setting: %v", err) // as codegen: the setting given is the mistake
	}
	out.Estimate = est
	if cal != nil {
		iv := cal.Interval.Around(est.TimeMs)
		out.Interval = &iv
	}
	if o.asJSON {
		return writeJSON(e, out)
	}
	printEstimate(e, out)
	return nil
}

// inputs reads the stencil, --oc and --gpu, and checks that the GPU can hold the stencil.
func (o *estimateOpts) inputs(e *env, file string) (*smart.Stencil, smart.Combination, smart.GPU, error) {
	st, err := loadStencil(e, file, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		return nil, 0, smart.GPU{}, err
	}
	oc, err := smart.ParseCombination(o.ocName)
	if err != nil {
		return nil, 0, smart.GPU{}, usagef("--oc: %v", err)
	}
	cat, err := catalog.Load(o.catFile)
	if err != nil {
		return nil, 0, smart.GPU{}, err
	}
	g, err := cat.Lookup(o.gpuName)
	if err != nil {
		return nil, 0, smart.GPU{}, usagef("--gpu: %w", err)
	}
	// Before the space: an AMD GPU has a space too, but no estimate.
	if err := roofline.CheckGPU(g); err != nil {
		return nil, 0, smart.GPU{}, usagef("--gpu: %v", err)
	}
	if err := g.CheckMemory(st); err != nil { // predict's check: no time for a run that cannot be
		return nil, 0, smart.GPU{}, fmt.Errorf("stencil file %s: field \"grid\" %s: %w; give a smaller grid, or a GPU with more memory", file, st.GridText(), err)
	}
	return st, oc, g, nil
}

// estimate models setting of st under oc on g once the search space has accepted it, with the
// constants of cal (nil: the literature's).
func estimate(ctx context.Context, st *smart.Stencil, oc smart.Combination, setting smart.Setting, g smart.GPU, cal *calibrate.File) (roofline.Estimate, error) {
	if err := space.CheckStencilSetting(ctx, st, oc, g, setting); err != nil {
		return roofline.Estimate{}, err
	}
	tuning, err := smart.DecodeTuning(st.Dims, oc, setting)
	if err != nil {
		return roofline.Estimate{}, err
	}
	var constants *roofline.Calibration
	if cal != nil {
		constants = &cal.Calibration
	}
	est, err := roofline.ModelWith(st, tuning, g, constants)
	if err != nil {
		return roofline.Estimate{}, fmt.Errorf("%s with %s on %s: %w", oc, setting, g.Name, err)
	}
	return est, nil
}

func printEstimate(e *env, o estimateOutput) {
	w := e.stdout
	est := o.Estimate
	which := "given"
	if o.DefaultSetting {
		which = "default; choose your own with --setting"
	}
	name := o.Stencil
	if name == "" {
		name = o.StencilID
	}
	fmt.Fprintf(w, "%s on %s under %s\n", name, o.GPU, o.OC)
	fmt.Fprintf(w, "setting     %s (%s)\n", o.Setting, which)
	fmt.Fprintf(w, "time        %.4g ms per step, %s-bound (simulated by the analytic model, not measured)\n", est.TimeMs, est.Bound)
	if iv := o.Interval; iv != nil {
		fmt.Fprintf(w, "interval    %.4g-%.4g ms per step holds the measured time %.0f%% of the time (%s)\n", iv.LoMs, iv.HiMs, 100*iv.Level, iv.From)
		fmt.Fprintln(w, "constants   calibrated: fitted to smart's measurements (data/calibration/stencil.json; --literature for the literature's)")
	} else {
		fmt.Fprintln(w, "constants   the literature's (DRAM at 85% of peak bandwidth), not fitted to measurements")
	}
	fmt.Fprintf(w, "  DRAM      %.4g ms  %s per step; L2 serves %.0f%% of halo re-reads\n", est.DRAMMs, siBytes(est.DRAMBytes), 100*est.L2HaloHit)
	fmt.Fprintf(w, "  on-chip   %.4g ms  %.3g shared/L1 loads per point, %.2fx the ideal passes per warp load\n", est.OnChipMs, est.LoadsPerPoint, est.Coalescing)
	fmt.Fprintf(w, "  compute   %.4g ms  %.3g GFLOP per step (%.2fx the grid's points computed), %.3g FLOP/byte\n", est.ComputeMs, est.FLOPs/1e9, est.Redundancy, est.Intensity)
	fmt.Fprintf(w, "  barriers  %.4g ms\n", est.BarrierMs)
	fmt.Fprintf(w, "  launch    %.4g ms\n", est.LaunchMs)
	fmt.Fprintf(w, "occupancy   %.0f%% (%d block(s) per SM, limited by %s); %d threads, %d registers and %d bytes of shared memory per block\n",
		100*est.Occupancy, est.BlocksPerSM, est.OccLimit, est.Usage.Threads, est.Usage.RegsPerThread, est.Usage.SharedBytes)
	if u := est.Usage; u.FusedRegs > 0 {
		fmt.Fprintf(w, "            + %d registers per thread of the fused steps' partial sums, which the compiler spills beyond the block's share (not in the time above)\n", u.FusedRegs)
	}
	fmt.Fprintf(w, "waves       %.3g waves of %d blocks (the partial last wave costs %.0f%%); latency hiding reaches %.0f%% of the bound's rate\n",
		est.Waves, est.Blocks, 100*(1/est.WaveEff-1), 100*est.LatencyEff)
}

// siBytes formats a byte count with an SI unit, as bandwidths are quoted.
func siBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	return strings.TrimSpace(fmt.Sprintf("%.3g %s", b, units[i]))
}
