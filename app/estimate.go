package app

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"

	"smart"
	"smart/calibrate"
	"smart/models/roofline"
	"smart/space"
)

// Estimate is the analytic model's time of a stencil's setting under an OC on a GPU, with its
// breakdown: what smart estimate prints.
type Estimate struct {
	Stencil        string            `json:"stencil"`
	StencilID      string            `json:"stencil_id"`
	GPU            string            `json:"gpu"`
	OC             smart.Combination `json:"oc"`
	Setting        smart.Setting     `json:"setting"`
	DefaultSetting bool              `json:"default_setting"` // true when the caller gave no setting
	Source         smart.Source      `json:"source"`
	// Constants says which of the model's constants gave the estimate: "calibrated" (fitted to
	// smart's measurements, with Interval from their held-out errors) or "literature".
	Constants string `json:"constants"`
	// ConstantsFile is the calibration file of calibrated constants, as given
	// (calibrate.EmbeddedName for smart's own); "" where the caller set none.
	ConstantsFile string            `json:"constants_file,omitempty"`
	Estimate      roofline.Estimate `json:"estimate"`
	Interval      *smart.Interval   `json:"interval,omitempty"`
	// BeyondInterval lists the ways this estimate lies outside what Interval was measured on
	// (another GPU, another order, element type or grid): its coverage there is not measured.
	BeyondInterval []string `json:"beyond_interval,omitempty"`
}

// EstimateSetting models setting of st under oc on g once the search space has accepted it,
// with the constants of cal (nil: the literature's) and, with cal, the interval of its
// held-out errors. Its errors are those of the setting.
func EstimateSetting(ctx context.Context, st *smart.Stencil, oc smart.Combination, setting smart.Setting, g smart.GPU, cal *calibrate.File) (*Estimate, error) {
	if err := space.CheckStencilSetting(ctx, st, oc, g, setting); err != nil {
		return nil, err
	}
	tuning, err := smart.DecodeTuning(st.Dims, oc, setting)
	if err != nil {
		return nil, err
	}
	out := &Estimate{Stencil: st.Name, StencilID: st.ID(), GPU: g.Name, OC: oc, Setting: setting, Source: smart.Simulated, Constants: "literature"}
	var constants *roofline.Calibration
	if cal != nil {
		constants, out.Constants = &cal.Calibration, "calibrated"
	}
	if out.Estimate, err = roofline.ModelWith(st, tuning, g, constants); err != nil {
		return nil, fmt.Errorf("%s with %s on %s: %w", oc, setting, g.Name, err)
	}
	if cal != nil {
		iv := cal.Interval.Around(out.Estimate.TimeMs).AtLeast(out.Estimate.FloorMs)
		out.Interval, out.BeyondInterval = &iv, cal.Beyond(st, g.Name)
	}
	return out, nil
}

// WriteText writes the estimate and its breakdown as smart estimate prints it.
func (o *Estimate) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	est := o.Estimate
	which := "given"
	if o.DefaultSetting {
		which = "default; choose your own with --setting"
	}
	fmt.Fprintf(bw, "%s on %s under %s\n", cmp.Or(o.Stencil, o.StencilID), o.GPU, o.OC)
	fmt.Fprintf(bw, "setting     %s (%s)\n", o.Setting, which)
	fmt.Fprintf(bw, "time        %.4g ms per step, %s-bound (simulated by the analytic model, not measured)\n", est.TimeMs, est.Bound)
	if iv := o.Interval; iv != nil {
		fmt.Fprintf(bw, "interval    %.4g-%.4g ms per step holds the measured time %.0f%% of the time (%s)\n", iv.LoMs, iv.HiMs, 100*iv.Level, iv.From)
		if len(o.BeyondInterval) > 0 {
			fmt.Fprintf(bw, "            unmeasured here: %s\n", strings.Join(o.BeyondInterval, "; "))
		}
		if f := o.ConstantsFile; f != "" && f != calibrate.EmbeddedName {
			fmt.Fprintf(bw, "constants   calibrated: from %s (smart calibrate's fit; --literature for the literature's)\n", f)
		} else {
			fmt.Fprintf(bw, "constants   calibrated: fitted to smart's measurements (%s; --literature for the literature's)\n", calibrate.EmbeddedName)
		}
	} else {
		fmt.Fprintln(bw, "constants   the literature's (DRAM at 85% of peak bandwidth), not fitted to measurements")
	}
	fmt.Fprintf(bw, "  DRAM      %.4g ms  %s per step; L2 serves %.0f%% of halo re-reads\n", est.DRAMMs, siBytes(est.DRAMBytes), 100*est.L2HaloHit)
	if est.L2Ms > 0 {
		fmt.Fprintf(bw, "  L2        %.4g ms  %s per step: every block's region, halos included, and the output\n", est.L2Ms, siBytes(est.L2Bytes))
	}
	fmt.Fprintf(bw, "  on-chip   %.4g ms  %.3g shared/L1 loads per point, %.2fx the ideal passes per warp load\n", est.OnChipMs, est.LoadsPerPoint, est.Coalescing)
	fmt.Fprintf(bw, "  compute   %.4g ms  %.3g GFLOP per step (an FMA, 2 FLOPs, per point read; %.2fx the grid's points computed), %.3g FLOP/byte\n", est.ComputeMs, est.FLOPs/1e9, est.Redundancy, est.Intensity)
	fmt.Fprintf(bw, "  barriers  %.4g ms\n", est.BarrierMs)
	fmt.Fprintf(bw, "  launch    %.4g ms\n", est.LaunchMs)
	if est.OCScale > 0 && est.OCScale != 1 {
		fmt.Fprintf(bw, "  OC factor %.3gx     the calibration's for %s multiplies the time the parts above give: what its code costs that no part counts\n", est.OCScale, o.OC)
	}
	regs := fmt.Sprintf("%d registers a thread", est.OccRegs)
	if est.OccRegs != est.Usage.RegsPerThread {
		regs += fmt.Sprintf(" (the estimate's %d times the calibration's register scale)", est.Usage.RegsPerThread)
	}
	fmt.Fprintf(bw, "occupancy   %.0f%% (%d block(s) per SM, limited by %s); %d threads, %s and %d bytes of shared memory per block\n",
		100*est.Occupancy, est.BlocksPerSM, est.OccLimit, est.Usage.Threads, regs, est.Usage.SharedBytes)
	if u := est.Usage; u.FusedRegs > 0 {
		fmt.Fprintf(bw, "            + %d registers per thread of the fused steps' partial sums, which the compiler spills beyond the block's share (not in the time above)\n", u.FusedRegs)
	}
	fmt.Fprintf(bw, "waves       %.3g waves of %d blocks (the partial last wave costs %.0f%%); latency hiding reaches %.0f%% of the bound's rate\n",
		est.Waves, est.Blocks, 100*(1/est.WaveEff-1), 100*est.LatencyEff)
	return bw.Flush()
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
