package app

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/generator"
	"smart/models/roofline"
)

// TestEstimateWriteText compares what smart estimate prints with text checked by hand: 2e9
// DRAM bytes are 2 GB, 3e9 FLOPs 3 GFLOP, a wave efficiency of 0.8 costs 25%.
func TestEstimateWriteText(t *testing.T) {
	e := &Estimate{Stencil: "j2d5pt", GPU: "A100-40GB", OC: smart.Combination(smart.ST), Setting: smart.Setting{"bx": 32, "by": 8}, DefaultSetting: true,
		Estimate: roofline.Estimate{TimeMs: 1.5, Bound: "memory", DRAMMs: 1.25, DRAMBytes: 2e9, L2HaloHit: 0.5, OnChipMs: 0.5, LoadsPerPoint: 5, Coalescing: 1,
			ComputeMs: 0.25, FLOPs: 3e9, Redundancy: 1, Intensity: 1.5, BarrierMs: 0.01, LaunchMs: 0.004, OCScale: 0.9,
			Usage: smart.Usage{Threads: 256, RegsPerThread: 32, SharedBytes: 2048, FusedRegs: 8}, OccRegs: 54, Occupancy: 0.5, BlocksPerSM: 4, OccLimit: "registers",
			Blocks: 1000, Waves: 2.5, WaveEff: 0.8, LatencyEff: 0.9},
		Interval: &smart.Interval{Level: 0.8, LoMs: 1, HiMs: 2, From: "held-out errors"}}
	want := `j2d5pt on A100-40GB under ST
setting     bx=32,by=8 (default; choose your own with --setting)
time        1.5 ms per step, memory-bound (simulated by the analytic model, not measured)
interval    1-2 ms per step holds the measured time 80% of the time (held-out errors)
constants   calibrated: fitted to smart's measurements (data/calibration/stencil.json; --literature for the literature's)
  DRAM      1.25 ms  2 GB per step; L2 serves 50% of halo re-reads
  on-chip   0.5 ms  5 shared/L1 loads per point, 1.00x the ideal passes per warp load
  compute   0.25 ms  3 GFLOP per step (an FMA, 2 FLOPs, per point read; 1.00x the grid's points computed), 1.5 FLOP/byte
  barriers  0.01 ms
  launch    0.004 ms
  OC factor 0.9x     the calibration's for ST multiplies the time the parts above give: what its code costs that no part counts
occupancy   50% (4 block(s) per SM, limited by registers); 256 threads, 54 registers a thread (the estimate's 32 times the calibration's register scale) and 2048 bytes of shared memory per block
            + 8 registers per thread of the fused steps' partial sums, which the compiler spills beyond the block's share (not in the time above)
waves       2.5 waves of 1000 blocks (the partial last wave costs 25%); latency hiding reaches 90% of the bound's rate
`
	var b bytes.Buffer
	if err := e.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestEstimateSetting: the calibrated constants bring an interval around the time, the
// literature's none; a setting outside the space is refused with the space's error.
// estimateInputs are a named stencil, a catalogued GPU and the embedded calibration.
func estimateInputs(t *testing.T, stencil, gpu string) (*smart.Stencil, smart.GPU, *calibrate.File) {
	t.Helper()
	st, err := generator.NamedStencil(stencil, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := cat.Lookup(gpu)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := calibrate.Default()
	if err != nil {
		t.Fatal(err)
	}
	return st, g, cal
}

func TestEstimateSetting(t *testing.T) {
	st, g, cal := estimateInputs(t, "j2d5pt", "a100")
	def := roofline.DefaultSetting(st, 0)
	for _, c := range []struct {
		name      string
		setting   smart.Setting
		cal       *calibrate.File
		constants string
		wantErr   string
	}{
		{"literature", def, nil, "literature", ""},
		{"calibrated", def, cal, "calibrated", ""},
		{"outside the space", smart.Setting{"bx": 7, "by": 8, "shared": 1, "const": 1}, nil, "", "bx=7 is not one of its values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, err := EstimateSetting(context.Background(), st, 0, c.setting, g, c.cal)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Constants != c.constants || e.GPU != g.Name || e.StencilID != st.ID() || !(e.Estimate.TimeMs > 0) {
				t.Errorf("got %+v", e)
			}
			if iv := e.Interval; (iv != nil) != (c.cal != nil) || iv != nil && !(e.Estimate.FloorMs <= iv.LoMs && iv.LoMs <= e.Estimate.TimeMs && e.Estimate.TimeMs <= iv.HiMs) {
				t.Errorf("interval %+v around %g ms", iv, e.Estimate.TimeMs)
			}
		})
	}
}

// TestOpenPredictor: the models given replace the defaults; a file that does not open is an
// error naming it.
func TestOpenPredictor(t *testing.T) {
	p, err := OpenPredictor("", nil)
	// CheckGiven of no stencils refuses every model given: none is.
	if err != nil || p.Catalog == nil || p.Models.CheckGiven(nil) != nil {
		t.Fatalf("defaults: %v, %+v", err, p)
	}
	if _, err := OpenPredictor("", []string{"/nonexistent.model"}); err == nil || !strings.Contains(err.Error(), "/nonexistent.model") {
		t.Errorf("a missing model: %v", err)
	}
	if _, err := OpenPredictor("/nonexistent-gpus.json", nil); err == nil || !strings.Contains(err.Error(), "/nonexistent-gpus.json") {
		t.Errorf("a missing catalogue: %v", err)
	}
}

// TestEstimateIntervalAboveFloor: the calibrated model's interval, a band of held-out errors
// around its time, is cut at the floor: j3d27pt on a T4 runs at its FMA floor, and the band's
// lower end (0.46x) would reach below it.
func TestEstimateIntervalAboveFloor(t *testing.T) {
	st, g, cal := estimateInputs(t, "j3d27pt", "t4")
	e, err := EstimateSetting(context.Background(), st, 0, roofline.DefaultSetting(st, 0), g, cal)
	if err != nil {
		t.Fatal(err)
	}
	if iv := e.Interval; iv == nil || iv.LoMs != e.Estimate.FloorMs || e.Estimate.FloorBy != roofline.FMAFloor || iv.HiMs < e.Estimate.TimeMs {
		t.Errorf("interval %+v of %g ms, floor %g ms (%s); want it to start at the FMA floor", iv, e.Estimate.TimeMs, e.Estimate.FloorMs, e.Estimate.FloorBy)
	}
}

// TestEstimateJSONKeys: every key of smart estimate --json is snake_case, as in the rest of
// smart's JSON; the resource usage's were Go-cased (RegsPerThread).
func TestEstimateJSONKeys(t *testing.T) {
	st, g, cal := estimateInputs(t, "j3d7pt", "a100")
	oc := smart.Combination(smart.ST | smart.RT | smart.TB)
	e, err := EstimateSetting(context.Background(), st, oc, roofline.DefaultSetting(st, oc), g, cal)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	snake := regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if !snake.MatchString(k) {
					t.Errorf("key %s.%s is not snake_case", path, k)
				}
				walk(path+"."+k, sub)
			}
		case []any:
			for _, sub := range v {
				walk(path+"[]", sub)
			}
		}
	}
	walk("", doc)
	usage, _ := doc["estimate"].(map[string]any)["usage"].(map[string]any)
	if len(usage) != 5 || usage["regs_per_thread"] == nil || usage["fused_regs"] == nil {
		t.Errorf("estimate.usage is %v; want threads, regs_per_thread, shared_bytes, fused_regs and local_regs", usage)
	}
}
