package roofline

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
)

func TestConvSettingOf(t *testing.T) {
	s, err := ConvSettingOf(smart.Setting{"block_size_x": 48, "block_size_y": 2, "tile_size_x": 3, "tile_size_y": 1,
		"read_only": 1, "use_padding": 0, "use_shmem": 1, "use_cmem": 1, "filter_width": 15, "filter_height": 15})
	want := ConvSetting{BlockX: 48, BlockY: 2, TileX: 3, TileY: 1, ReadOnly: true, Shared: true}
	if err != nil || s != want {
		t.Errorf("got %+v, %v; want %+v", s, err, want)
	}
	if _, err := ConvSettingOf(smart.Setting{"block_size_x": 48}); err == nil || !strings.Contains(err.Error(), "block_size_y") {
		t.Errorf("missing parameter: %v", err)
	}
}

func TestConvGuardedAndSpans(t *testing.T) {
	p := KernelTunerConv()
	tests := []struct {
		s       ConvSetting
		guarded bool
	}{
		{ConvSetting{BlockX: 32, BlockY: 4, TileX: 1, TileY: 2}, false},
		{ConvSetting{BlockX: 48, BlockY: 1, TileX: 1, TileY: 1}, true},
		{ConvSetting{BlockX: 32, BlockY: 1, TileX: 1, TileY: 3}, true},
	}
	for _, tc := range tests {
		if got := p.Guarded(tc.s); got != tc.guarded {
			t.Errorf("%s: guarded %v", tc.s, got)
		}
	}
	// Four tile rows one thread row apart read 3 + 15 rows; a block of 16 rows apart, 4 x 15.
	if unionSpan(4, 1, 15) != 18 || unionSpan(4, 16, 15) != 60 || unionSpan(1, 8, 15) != 15 {
		t.Error("unionSpan")
	}
}

func TestConvRejectsLikeFits(t *testing.T) {
	p := KernelTunerConv()
	g := gpu(t, "a100")
	s := ConvSetting{BlockX: 256, BlockY: 8, TileX: 1, TileY: 1}
	_, err := p.Estimate(s, g, nil)
	want := smart.Usage{Threads: 2048}.Fits(g)
	if err == nil || err.Error() != want.Error() {
		t.Errorf("error %v, want %v", err, want)
	}
	if _, err := p.Estimate(ConvSetting{BlockX: 0, BlockY: 1, TileX: 1, TileY: 1}, g, nil); err == nil {
		t.Error("a zero block was modelled")
	}
	// Sizes whose products overflow an int (a block of 2^80 threads wrapped to 0 and divided by
	// it) are refused before any arithmetic.
	for _, s := range []ConvSetting{{BlockX: 1 << 40, BlockY: 1 << 40, TileX: 1, TileY: 1}, {BlockX: 32, BlockY: 4, TileX: 1 << 40, TileY: 1 << 40}, {BlockX: 32, BlockY: 4, TileX: 1 << 13, TileY: 1}} {
		if _, err := p.Estimate(s, g, nil); err == nil || !strings.Contains(err.Error(), "fit no GPU's block or image") {
			t.Errorf("%v: error %v", s, err)
		}
	}
	ok := ConvSetting{BlockX: 32, BlockY: 4, TileX: 1, TileY: 1}
	for _, bad := range []ConvProblem{{Width: 1 << 40, Height: 1 << 40, FilterW: 15, FilterH: 15}, {Width: 4096, Height: 4096, FilterW: 1 << 40, FilterH: 1 << 40}, {Width: 4096, Height: 0, FilterW: 15, FilterH: 15}} {
		if _, err := bad.Estimate(ok, g, nil); err == nil || !strings.Contains(err.Error(), "the image must be") {
			t.Errorf("%+v: error %v", bad, err)
		}
	}
}

// Properties of the first-principles part: a warp of 16 threads wastes half of an NVIDIA warp
// and three quarters of a CDNA wavefront, so halving the block's width costs more on the MI250X.
func TestConvWaveWidth(t *testing.T) {
	p := KernelTunerConv()
	ratio := func(name string) float64 {
		g := gpu(t, name)
		narrow, err1 := p.Estimate(ConvSetting{BlockX: 16, BlockY: 1, TileX: 1, TileY: 1}, g, nil)
		wide, err2 := p.Estimate(ConvSetting{BlockX: 64, BlockY: 1, TileX: 1, TileY: 1}, g, nil)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return narrow.TimeMs / wide.TimeMs
	}
	nv, amd := ratio("a100"), ratio("mi250x")
	if !(nv > 1.2 && amd > nv) {
		t.Errorf("16-wide over 64-wide blocks: %.2f on A100, %.2f on MI250X; want > 1.2 and larger on the MI250X", nv, amd)
	}
}

// FitConv recovers the constants of times the model itself generates with a known calibration.
func TestFitConvRecovers(t *testing.T) {
	p := KernelTunerConv()
	g := gpu(t, "a6000")
	truth := &ConvCalibration{Shared: 2, GuardShared: 1.5, GuardGlobal: 8, GuardTile: 0.5}
	var samples []ConvSample
	for _, bx := range []int{16, 32, 48, 64, 128} {
		for _, by := range []int{1, 2, 4} {
			for _, tx := range []int{1, 2, 3} {
				for _, ty := range []int{1, 2, 4} {
					for _, sh := range []bool{false, true} {
						s := ConvSetting{BlockX: bx, BlockY: by, TileX: tx, TileY: ty, Shared: sh}
						e, err := p.Estimate(s, g, truth)
						if err != nil {
							continue
						}
						samples = append(samples, ConvSample{Setting: s, TimeMs: e.TimeMs})
					}
				}
			}
		}
	}
	cal, err := FitConv(p, g, samples, nil)
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) <= 0.1*want }
	if !near(cal.Shared, 2) || !near(cal.GuardShared, 1.5) || !near(cal.GuardGlobal, 8) || !near(cal.GuardTile, 0.5) {
		t.Errorf("fitted %+v, want %+v", cal, truth)
	}
	if cal.Toolchain != "NVIDIA" || !strings.Contains(cal.FittedOn, "RTX-A6000") {
		t.Errorf("provenance %q %q", cal.Toolchain, cal.FittedOn)
	}
	if _, err := FitConv(p, g, samples[:3], nil); err == nil {
		t.Error("fitted on three samples")
	}
}

func TestScaleConv(t *testing.T) {
	p := KernelTunerConv()
	a100, w6600 := gpu(t, "a100"), gpu(t, "w6600")
	s := ConvSetting{BlockX: 32, BlockY: 4, TileX: 1, TileY: 2, Shared: true}
	same, err := ScaleConv(p, s, 1.5, a100, a100, nil)
	if err != nil || same != 1.5 {
		t.Errorf("identity: %v, %v", same, err)
	}
	// A calibration fitted on the source divides the source's factor out; on another vendor
	// nothing of it applies to the target.
	cal := &ConvCalibration{Toolchain: "NVIDIA", Shared: 2}
	plain, _ := ScaleConv(p, s, 1.5, a100, w6600, nil)
	withCal, _ := ScaleConv(p, s, 1.5, a100, w6600, cal)
	if math.Abs(withCal-plain/2) > 0.01*plain {
		t.Errorf("scaled %v with calibration, %v without; want about half (the launch is not calibrated)", withCal, plain)
	}
	big := ConvSetting{BlockX: 1024, BlockY: 2, TileX: 1, TileY: 1}
	if _, err := ScaleConv(p, big, 1, a100, w6600, nil); !errors.Is(err, ErrNotModelled) {
		t.Errorf("2048 threads: %v", err)
	}
}

// TestConvMachineTerms: a stencil calibration equal to the literature's constants changes no
// estimate; one whose every cost is doubled (latencies, pipe scales, issue, barrier, launch; half
// the bandwidth) slows every NVIDIA estimate and no AMD one, whose code it was not fitted on.
func TestConvMachineTerms(t *testing.T) {
	p := KernelTunerConv()
	settings := []ConvSetting{
		{BlockX: 32, BlockY: 4, TileX: 1, TileY: 2, Shared: true},
		{BlockX: 128, BlockY: 2, TileX: 2, TileY: 4},
		{BlockX: 16, BlockY: 16, TileX: 1, TileY: 1, ReadOnly: true},
	}
	for _, name := range []string{"a100", "rtx-a4000", "w6600"} {
		g := gpu(t, name)
		m, err := newMachine(g)
		if err != nil {
			t.Fatal(err)
		}
		lit := literature(m)
		slow := lit
		slow.PeakEfficiency /= 2
		slow.L1Latency, slow.OnChipLatency, slow.L1Scale, slow.OnChipScale = 2*lit.L1Latency, 2*lit.OnChipLatency, 2, 2
		slow.ComputeScale, slow.BarrierTiled, slow.LaunchUs = 2, 2*lit.BarrierTiled, 2*lit.LaunchUs
		for _, s := range settings {
			base, err1 := p.Estimate(s, g, nil)
			same, err2 := p.Estimate(s, g, &ConvCalibration{Machine: &lit})
			slower, err3 := p.Estimate(s, g, &ConvCalibration{Machine: &slow})
			if err := errors.Join(err1, err2, err3); err != nil {
				t.Fatalf("%s %s: %v", name, s, err)
			}
			if math.Abs(same.TimeMs/base.TimeMs-1) > 1e-12 {
				t.Errorf("%s %s: %g ms with the literature's constants as a calibration, %g without", name, s, same.TimeMs, base.TimeMs)
			}
			if amd := g.Vendor == "AMD"; amd != (slower.TimeMs == base.TimeMs) || (!amd && slower.TimeMs < 1.5*base.TimeMs) {
				t.Errorf("%s %s: %g ms with every cost doubled, %g without", name, s, slower.TimeMs, base.TimeMs)
			}
		}
	}
}

func TestEvaluator(t *testing.T) {
	c, _ := catalog.Default()
	ev := Evaluator{Catalog: c}
	st := star(t, 2, 1, smart.Float32, [3]int{4096, 4096, 1})
	ok := smart.Query{Stencil: st, OC: 0, Setting: smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1}, GPU: "NVIDIA A100-PCIE-40GB"}
	m, err := ev.Evaluate(context.Background(), ok)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := Model(st, tuning(t, st, 0, ok.Setting), gpu(t, "a100"))
	if m.Status != smart.StatusOK || m.Source != smart.Simulated || m.TimeMs != e.TimeMs || m.GPU != "A100-40GB" || m.StencilID != st.ID() {
		t.Errorf("measurement %+v", m)
	}
	tests := []struct {
		name string
		q    smart.Query
		want string
	}{
		{"too many threads", smart.Query{Stencil: st, Setting: smart.Setting{"bx": 64, "by": 32, "shared": 1, "const": 1}, GPU: "t4"}, "threads per block"},
		{"missing parameter", smart.Query{Stencil: st, Setting: smart.Setting{"bx": 64}, GPU: "t4"}, "missing"},
		{"AMD", smart.Query{Stencil: st, Setting: ok.Setting, GPU: "w7800"}, "NVIDIA GPUs only"},
	}
	for _, tc := range tests {
		m, err := ev.Evaluate(context.Background(), tc.q)
		if err != nil || m.Status != smart.StatusInvalid || !strings.Contains(m.Error, tc.want) || m.Source != smart.Simulated {
			t.Errorf("%s: %+v, %v; want invalid with %q", tc.name, m, err, tc.want)
		}
	}
	if _, err := ev.Evaluate(context.Background(), smart.Query{Stencil: st, Setting: ok.Setting, GPU: "a1000"}); err == nil {
		t.Error("unknown GPU evaluated")
	}
	if _, err := ev.Evaluate(context.Background(), smart.Query{Setting: ok.Setting, GPU: "a100"}); err == nil {
		t.Error("query without a stencil evaluated")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ev.Evaluate(ctx, ok); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	var _ smart.Evaluator = ev
}
