package roofline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/catalog"
	"smart/internal/testctx"
)

func gpu(t testing.TB, name string) smart.GPU {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func star(t testing.TB, dims, order int, dtype smart.Dtype, grid [3]int) *smart.Stencil {
	t.Helper()
	offs := []smart.Offset{{}}
	for a := range dims {
		for k := 1; k <= order; k++ {
			var p, m smart.Offset
			p[a], m[a] = k, -k
			offs = append(offs, p, m)
		}
	}
	s, err := smart.NewStencil(fmt.Sprintf("star%dd%dr", dims, order), dims, offs, nil, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s.Dtype, s.Grid = dtype, grid
	return s
}

func tuning(t testing.TB, st *smart.Stencil, oc smart.Combination, set smart.Setting) smart.Tuning {
	t.Helper()
	tu, err := smart.DecodeTuning(st.Dims, oc, set)
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// A memory-bound baseline reads and writes the grid once: its time is 2 N x 8 bytes at 85% of
// the A100's 1555 GB/s, plus the launch (golden value computed by hand: 1.6241 ms + 4 us).
func TestMemoryBoundGolden(t *testing.T) {
	st := star(t, 3, 1, smart.Float64, [3]int{512, 512, 512})
	tu := tuning(t, st, 0, smart.Setting{"bx": 32, "by": 8, "bz": 1, "shared": 1, "const": 1})
	e, err := Model(st, tu, gpu(t, "a100"))
	if err != nil {
		t.Fatal(err)
	}
	want := 2*512*512*512*8/(1555e9*0.85)*1e3 + 0.004
	if e.Bound != "memory" || math.Abs(e.TimeMs-want)/want > 0.02 {
		t.Errorf("time %.4f ms (%s-bound), want %.4f ms memory-bound", e.TimeMs, e.Bound, want)
	}
	if e.DRAMBytes != 2*512*512*512*8 || e.FLOPs != 2*7*512*512*512 {
		t.Errorf("bytes %v, FLOPs %v", e.DRAMBytes, e.FLOPs)
	}
}

// Temporal blocking with tt=2 on a 2-D order-1 stencil in 32x8 tiles recomputes a one-point
// halo at the first level: (34 x 10 + 32 x 8) / (2 x 32 x 8) = 596/512 points per grid point
// and step; it halves the DRAM traffic per step.
func TestTemporalBlockingRedundancy(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{8192, 8192, 1})
	g := gpu(t, "v100")
	base, err := Model(st, tuning(t, st, 0, smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1}), g)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Model(st, tuning(t, st, smart.Combination(smart.TB), smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1, "tt": 2}), g)
	if err != nil {
		t.Fatal(err)
	}
	if want := 596.0 / 512; math.Abs(tb.Redundancy-want) > 1e-9 {
		t.Errorf("redundancy %v, want %v", tb.Redundancy, want)
	}
	if r := tb.DRAMBytes / base.DRAMBytes; r < 0.45 || r > 0.6 {
		t.Errorf("TB moves %.2f of the baseline's DRAM bytes per step; want about half", r)
	}
	if tb.LaunchMs*2 != base.LaunchMs {
		t.Errorf("launch per step %v with tt=2, %v without", tb.LaunchMs, base.LaunchMs)
	}
}

func TestLoadsPerPoint(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{1024, 1024, 1})
	tests := []struct {
		oc   smart.Combination
		set  smart.Setting
		want float64
	}{
		{0, smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1}, 5},
		// two adjacent points along x read 8 distinct values
		{smart.Combination(smart.BM), smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1, "ufx": 1, "ufy": 1, "bmx": 2, "bmy": 1}, 4},
		// a block apart they share nothing
		{smart.Combination(smart.CM), smart.Setting{"bx": 32, "by": 8, "shared": 1, "const": 1, "ufx": 1, "ufy": 1, "cmx": 2, "cmy": 1}, 5},
		// streaming along y: the column (0,-1),(0,0),(0,1) comes from registers, one new value a plane
		{smart.Combination(smart.ST), smart.Setting{"bx": 32, "by": 1, "shared": 1, "const": 1, "sd": 2, "sb": 64, "ufx": 1, "ufy": 1}, 3},
		// retiming reads each in-plane position once: x = -1, 0, 1
		{smart.Combination(smart.ST).With(smart.RT), smart.Setting{"bx": 32, "by": 1, "shared": 1, "const": 1, "sd": 2, "sb": 64, "ufx": 1, "ufy": 1}, 3},
	}
	for _, tc := range tests {
		if got := loadsPerPoint(st, tuning(t, st, tc.oc, tc.set)); got != tc.want {
			t.Errorf("%s: %v loads per point, want %v", tc.oc, got, tc.want)
		}
	}
	box := []smart.Offset{}
	for x := -1; x <= 1; x++ {
		for y := -1; y <= 1; y++ {
			box = append(box, smart.Offset{x, y, 0})
		}
	}
	b, _ := smart.NewStencil("box", 2, box, nil, smart.Limits{})
	st2 := tuning(t, b, smart.Combination(smart.ST), smart.Setting{"bx": 32, "by": 1, "shared": 1, "const": 1, "sd": 2, "sb": 64, "ufx": 1, "ufy": 1})
	rt := st2
	rt.OC = rt.OC.With(smart.RT)
	if got := loadsPerPoint(b, st2); got != 7 { // 6 off-column values + 1 new own value
		t.Errorf("box ST: %v, want 7", got)
	}
	if got := loadsPerPoint(b, rt); got != 3 {
		t.Errorf("box ST_RT: %v, want 3", got)
	}
}

// loadsPerPoint counts on a dense box; this is the same count with sets of offsets, as the
// definition reads, over random stencils of order 1-4 and every OC with random merging and
// streaming axes.
func TestLoadsPerPointMatchesSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 400 {
		dims := 2 + i%2
		r := 1 + rng.IntN(4)
		offs := []smart.Offset{{}}
		for range 1 + rng.IntN(30) {
			var o smart.Offset
			for a := range dims {
				o[a] = rng.IntN(2*r+1) - r
			}
			if !slices.Contains(offs, o) {
				offs = append(offs, o)
			}
		}
		st, err := smart.NewStencil("random", dims, offs, nil, smart.Limits{MaxOrder: smart.MaxMaxOrder})
		if err != nil {
			t.Fatal(err)
		}
		for _, oc := range smart.Combinations() {
			tu := smart.Tuning{Dims: dims, OC: oc, Merge: [3]int{1, 1, 1}, StreamAxis: -1}
			for a := range dims {
				tu.Merge[a] = 1 << rng.IntN(4)
			}
			if rng.IntN(8) == 0 {
				tu.Merge[0] = 64 + rng.IntN(64) // a box larger than loadsPerPoint's stack buffer
			}
			if oc.Has(smart.ST) {
				tu.StreamAxis = rng.IntN(dims)
			}
			if got, want := loadsPerPoint(st, tu), loadsPerPointSets(st, tu); got != want {
				t.Fatalf("%v under %s, merge %v, streaming axis %d: %v loads per point, the sets give %v", offs, oc, tu.Merge, tu.StreamAxis, got, want)
			}
		}
	}
}

func loadsPerPointSets(st *smart.Stencil, t smart.Tuning) float64 {
	shifts := []smart.Offset{{}}
	if t.OC.Has(smart.BM) {
		for a := range 3 {
			var next []smart.Offset
			for _, s := range shifts {
				for k := range t.Merge[a] {
					s2 := s
					s2[a] += k
					next = append(next, s2)
				}
			}
			shifts = next
		}
	}
	union := map[smart.Offset]bool{}
	for _, s := range shifts {
		for _, o := range st.Offsets() {
			union[smart.Offset{o[0] + s[0], o[1] + s[1], o[2] + s[2]}] = true
		}
	}
	sa := t.StreamAxis
	proj := func(o smart.Offset) smart.Offset {
		if sa >= 0 {
			o[sa] = 0
		}
		return o
	}
	n := float64(len(union))
	switch {
	case sa >= 0 && t.OC.Has(smart.RT):
		cols := map[smart.Offset]bool{}
		for o := range union {
			cols[proj(o)] = true
		}
		n = float64(len(cols))
	case sa >= 0:
		own := map[smart.Offset]bool{}
		for _, s := range shifts {
			own[proj(s)] = true
		}
		n = float64(len(own))
		for o := range union {
			if !own[proj(o)] {
				n++
			}
		}
	}
	return n / float64(len(shifts))
}

func TestPasses(t *testing.T) {
	m, err := newMachine(gpu(t, "a100"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                              string
		blockX, pitch, stride, elem, want int
	}{
		{"float32 row", 32, 1000, 1, 4, 1},
		{"float64 row", 32, 1000, 1, 8, 2},
		{"float64 stride 2", 32, 1000, 2, 8, 4},
		{"float32 stride 2", 32, 1000, 2, 4, 2},
		{"float32 half rows, pitch 32", 16, 32, 1, 4, 2}, // both rows map to the same 16 banks
		{"float32 half rows, pitch 48", 16, 48, 1, 4, 1},
	}
	for _, tc := range tests {
		if got := m.bankPasses(tc.blockX, tc.pitch, tc.stride, tc.elem, 0); got != float64(tc.want) {
			t.Errorf("%s: %v bank passes, want %d", tc.name, got, tc.want)
		}
	}
	// 128 contiguous bytes touch one 128-byte line when aligned, two otherwise: rows start at
	// 0, 32, 64 or 96 bytes into a line.
	if got := m.linePasses(32, 4096, 1, 4, 0); got != 1.75 {
		t.Errorf("float32 row: %v line passes, want 1.75", got)
	}
}

// linePasses finds a lane's line by a shift and skips repeats; this is the count by division and
// a list, as the definition reads, over random blocks, pitches, strides, elements and shifts
// (negative ones too: offsets left of the point), on NVIDIA's 128-byte lines and AMD's 64.
func TestLinePassesMatchesDivision(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"a100", "mi250x"} {
		m, err := newMachine(gpu(t, name))
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			blockX, pitch, stride := 1<<rng.IntN(11), 1+rng.IntN(5000), 1+rng.IntN(9)
			elem, shift := 4<<rng.IntN(2), rng.IntN(17)-8
			got, want := m.linePasses(blockX, pitch, stride, elem, shift), linePassesByDivision(m, blockX, pitch, stride, elem, shift)
			if got != want {
				t.Fatalf("%s: linePasses(%d, %d, %d, %d, %d) = %v, by division %v", name, blockX, pitch, stride, elem, shift, got, want)
			}
		}
	}
}

// warpPasses counts the bank passes of one x offset for all: a shift of every address only
// renumbers the banks. This holds bankPasses to that over random blocks, pitches, strides,
// elements and shifts.
func TestBankPassesShiftInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, err := newMachine(gpu(t, "a100"))
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		blockX, pitch, stride, elem := 1<<rng.IntN(11), 1+rng.IntN(300), 1+rng.IntN(9), 4<<rng.IntN(2)
		want := m.bankPasses(blockX, pitch, stride, elem, 0)
		for shift := -20; shift <= 20; shift++ {
			if got := m.bankPasses(blockX, pitch, stride, elem, shift); got != want {
				t.Fatalf("bankPasses(%d, %d, %d, %d, %d) = %v, with shift 0 %v", blockX, pitch, stride, elem, shift, got, want)
			}
		}
	}
}

func linePassesByDivision(m machine, blockX, pitch, stride, elem, shift int) float64 {
	total, n := 0, 0
	var lines []int
	for start := 0; start < m.l1Line; start += 32 {
		lines = lines[:0]
		for l := range m.warp {
			e := (l/blockX)*pitch + (l%blockX)*stride + shift
			for _, b := range []int{start + e*elem, start + e*elem + elem - 1} {
				if k := floorDiv(b, m.l1Line); !slices.Contains(lines, k) {
					lines = append(lines, k)
				}
			}
		}
		total += len(lines)
		n++
	}
	return float64(total) / float64(n) * float64(m.l1Line) / m.l1Bytes
}

func TestOccupancyAndWaves(t *testing.T) {
	m, err := newMachine(gpu(t, "a100"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		threads, regs, shared, blocks int
		limit                         string
	}{
		{256, 32, 0, 8, "threads per SM"},
		{256, 64, 0, 4, "registers"},
		{256, 32, 24704, 6, "shared memory"}, // 167936 / (24704 + 1024 reserved)
		{32, 16, 0, 32, "blocks per SM"},
		{1024, 255, 0, 0, "registers"},
	}
	for _, tc := range tests {
		o := m.occupancyOf(tc.threads, tc.regs, tc.shared)
		if o.blocksPerSM != tc.blocks || o.limit != tc.limit {
			t.Errorf("%d threads, %d regs, %d B: %d blocks (%s), want %d (%s)", tc.threads, tc.regs, tc.shared, o.blocksPerSM, o.limit, tc.blocks, tc.limit)
		}
	}
	o := m.occupancyOf(256, 32, 24704)
	waves, eff := m.waves(8192, o)
	if want := 8192.0 / (108 * 6); math.Abs(waves-want) > 1e-9 || math.Abs(eff-want/13) > 1e-9 {
		t.Errorf("waves %v (eff %v), want %v (%v)", waves, eff, want, want/13)
	}
}

// The model rejects what the search space rejects, with the same message.
func TestRejectsLikeTheSpace(t *testing.T) {
	st := star(t, 3, 4, smart.Float64, [3]int{512, 512, 512})
	g := gpu(t, "t4")
	tests := []smart.Setting{
		{"bx": 64, "by": 32, "bz": 1, "shared": 1, "const": 1}, // 2048 threads
		{"bx": 128, "by": 8, "bz": 1, "shared": 1, "const": 1}, // shared memory
	}
	for _, set := range tests {
		tu := tuning(t, st, 0, set)
		want := tu.Usage(st).Fits(g)
		if want == nil {
			t.Fatalf("%s fits the T4; pick a setting that does not", set)
		}
		_, err := Model(st, tu, g)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%s: error %v, want %v", set, err, want)
		}
	}
	if _, err := Model(st, tuning(t, st, 0, smart.Setting{"bx": 32, "by": 8, "bz": 1, "shared": 0, "const": 1}), gpu(t, "mi250x")); !errors.Is(err, ErrVendor) {
		t.Errorf("AMD GPU: %v, want ErrVendor", err)
	}
}

// Tunings built directly (DecodeTuning rejects these settings) whose factors overflow the tile,
// register and shared-memory products, or make loadsPerPoint list billions of shifts, get an
// error naming the parameter: no division by zero, no endless loop, no exhausted memory.
func TestModelRejectsAbsurdTunings(t *testing.T) {
	st := star(t, 3, 1, smart.Float64, [3]int{512, 512, 512})
	a100 := gpu(t, "a100")
	roomy := a100 // a catalogue entry with registers for thousands of points per thread
	roomy.MaxRegsPerThread, roomy.RegsPerBlock, roomy.RegsPerSM = 1<<30, 1<<40, 1<<40
	base := func(oc smart.Combination, edit func(*smart.Tuning)) smart.Tuning {
		tu := smart.Tuning{OC: oc, Dims: 3, Block: [3]int{32, 8, 1}, Merge: [3]int{1, 1, 1}, Unroll: [3]int{1, 1, 1},
			Shared: true, StreamAxis: -1, SB: 1, TT: 1}
		if oc.Has(smart.ST) {
			tu.StreamAxis, tu.SB = 2, 64
		}
		if oc.Has(smart.TB) {
			tu.TT = 2
		}
		edit(&tu)
		return tu
	}
	bm := smart.Combination(smart.BM)
	stBMRTTB := smart.Combination(smart.ST | smart.BM | smart.RT | smart.TB)
	for _, tc := range []struct {
		name string
		t    smart.Tuning
		g    smart.GPU
		want string
	}{
		{"zero block", base(0, func(t *smart.Tuning) { t.Block[0] = 0 }), a100, "bx is 0; it must be at least 1"},
		{"tile wraps to 0", base(bm, func(t *smart.Tuning) { t.Merge[0] = 1 << 59 }), a100, "bmx is 576460752303423488"},
		{"tile wraps to 0 with streaming", base(stBMRTTB, func(t *smart.Tuning) { t.Merge[0], t.Merge[1] = 1<<62, 4 }), a100, "bmx is 4611686018427387904"},
		{"the out-of-memory setting of the audit", base(stBMRTTB, func(t *smart.Tuning) {
			t.Block, t.Merge, t.Unroll, t.StreamAxis, t.SB, t.TT = [3]int{2, 1, 2}, [3]int{1 << 31, 1, 1}, [3]int{64, 1 << 31, 2}, 1, 3, 1<<31-1
		}), a100, "at most 1048576"},
		{"shared memory wraps", base(smart.Combination(smart.ST|smart.RT|smart.TB), func(t *smart.Tuning) { t.TT = 100_000_000 }), a100, "tt is 100000000"},
		{"tile beyond any grid", base(bm, func(t *smart.Tuning) { t.Merge[1] = 1 << 20 }), a100, "the tile along y is by*bmy = 8388608 points"},
		{"streaming axis outside", base(smart.Combination(smart.ST), func(t *smart.Tuning) { t.StreamAxis = 5 }), a100, "sd is 6"},
		{"more points per thread than registers", base(bm, func(t *smart.Tuning) { t.Block, t.Merge = [3]int{1, 1, 1}, [3]int{16, 16, 2} }), roomy, "512 points"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Model(st, tc.t, tc.g)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
			}
		case <-testctx.Context(t).Done():
			t.Fatalf("%s: Model has not returned by the test's deadline", tc.name)
		}
	}
}

// Properties every estimate must have, for every combination with its default setting on every
// catalogued NVIDIA GPU.
func TestEveryCombinationEveryGPU(t *testing.T) {
	c, _ := catalog.Default()
	sts := []*smart.Stencil{star(t, 3, 1, smart.Float64, [3]int{512, 512, 512}), star(t, 2, 2, smart.Float32, [3]int{8192, 8192, 1})}
	for _, g := range c.GPUs() {
		if g.Vendor != "NVIDIA" {
			continue
		}
		for _, st := range sts {
			for _, oc := range smart.Combinations() {
				tu := tuning(t, st, oc, DefaultSetting(st, oc))
				e, err := Model(st, tu, g)
				if err != nil {
					t.Errorf("%s %s %s: %v", g.Name, st.Name, oc, err)
					continue
				}
				parts := e.DRAMMs + e.OnChipMs + e.ComputeMs
				if !(e.TimeMs > 0) || math.IsInf(e.TimeMs, 0) || e.TimeMs < math.Max(e.DRAMMs, math.Max(e.OnChipMs, e.ComputeMs)) || e.TimeMs > 10*parts+1 {
					t.Errorf("%s %s %s: time %v ms with parts %+v", g.Name, st.Name, oc, e.TimeMs, e)
				}
				if e.Occupancy <= 0 || e.Occupancy > 1 || e.WaveEff <= 0 || e.WaveEff > 1 || e.Redundancy < 1 {
					t.Errorf("%s %s %s: occupancy %v, wave efficiency %v, redundancy %v", g.Name, st.Name, oc, e.Occupancy, e.WaveEff, e.Redundancy)
				}
			}
		}
	}
}

// More bandwidth makes a memory-bound variant faster in proportion: the ratio of the model's
// times across GPUs (transfer.AnalyticRatio's) follows the bandwidths.
func TestScaleMemoryBound(t *testing.T) {
	st := star(t, 3, 1, smart.Float64, [3]int{512, 512, 512})
	tu := tuning(t, st, 0, smart.Setting{"bx": 32, "by": 8, "bz": 1, "shared": 1, "const": 1})
	a100, h100 := gpu(t, "a100"), gpu(t, "h100")
	a, err := Model(st, tu, a100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Model(st, tu, h100)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := 2*b.TimeMs/a.TimeMs, 2*1555.0/3350; math.Abs(got-want)/want > 0.05 {
		t.Errorf("A100 -> H100: %v ms, want about %v (bandwidth ratio)", got, want)
	}
	f, _ := Feature(st, tu, a100)
	e, _ := Model(st, tu, a100)
	if f != math.Log(e.TimeMs) {
		t.Errorf("feature %v, want ln(%v)", f, e.TimeMs)
	}
}

func ExampleModel() {
	c, _ := catalog.Default()
	g, _ := c.Lookup("a100")
	offs := []smart.Offset{{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}
	st, _ := smart.NewStencil("j3d7pt", 3, offs, nil, smart.Limits{}) // float64, 512^3
	oc := smart.Combination(smart.ST).With(smart.TB)
	t, _ := smart.DecodeTuning(3, oc, DefaultSetting(st, oc))
	e, err := Model(st, t, g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.2f ms per step, %s-bound, %.2f GB per step\n", oc, e.TimeMs, e.Bound, e.DRAMBytes/1e9)
	// Output: ST_TB: 0.91 ms per step, memory-bound, 1.11 GB per step
}

func BenchmarkModel(b *testing.B) {
	st := star(b, 3, 2, smart.Float64, [3]int{512, 512, 512})
	oc := smart.Combination(smart.ST).With(smart.BM).With(smart.TB)
	tu := tuning(b, st, oc, DefaultSetting(st, oc))
	g := gpu(b, "a100")
	for b.Loop() {
		if _, err := Model(st, tu, g); err != nil {
			b.Fatal(err)
		}
	}
}

// The default streaming block is an eighth of the streamed extent rounded down to a power of
// two: the search space holds only powers of two, and smart estimate checks the default too.
func TestDefaultSettingSB(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{64, 64, 1})
	for _, tc := range []struct{ extent, want int }{{8192, 1024}, {1000, 64}, {100, 8}, {15, 1}, {7, 1}} {
		st.Grid[1] = tc.extent
		if got := DefaultSetting(st, smart.Combination(smart.ST))[smart.ParamStreamB]; got != tc.want {
			t.Errorf("extent %d: sb = %d, want %d", tc.extent, got, tc.want)
		}
	}
}

// TestLocalCycles: the local-memory term adds LocalCycles per value in local memory per point
// computed to the kernels whose merged loop is not unrolled in full, and nothing to the same
// kernel unrolled in full; 0 (a calibration from before the term) changes no estimate.
func TestLocalCycles(t *testing.T) {
	st := star(t, 2, 4, smart.Float64, [3]int{8192, 8192, 1})
	g := gpu(t, "h100-sxm")
	oc := smart.Combination(smart.ST | smart.CM | smart.RT | smart.PR)
	base := smart.Setting{"bx": 256, "by": 1, "shared": 0, "const": 1, "sd": 2, "sb": 1, "ufx": 2, "ufy": 1, "cmx": 8, "cmy": 1}
	partly := tuning(t, st, oc, base)
	base["ufx"] = 8
	full := tuning(t, st, oc, base)
	m, err := newMachine(g)
	if err != nil {
		t.Fatal(err)
	}
	off := literature(m)
	on := off
	on.LocalCycles = 2
	for _, tc := range []struct {
		name  string
		t     smart.Tuning
		extra float64 // seconds the term adds
	}{
		// 176 values over 8 points, 2 cycles each, per point computed, over the SMs' cycles.
		{"partly unrolled", partly, 2 * 176.0 / 8},
		{"unrolled in full", full, 0},
	} {
		a, err := ModelWith(st, tc.t, g, &off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ModelWith(st, tc.t, g, &on)
		if err != nil {
			t.Fatal(err)
		}
		_, tm, err := analyse(st, tc.t, g, factsOf(st, loadsPerPoint))
		if err != nil {
			t.Fatal(err)
		}
		want := tc.extra * tm.computed / m.sms / m.clock * 1e3 / tm.steps // per step
		if got := b.TimeMs - a.TimeMs; math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Errorf("%s: the term adds %.6g ms, want %.6g", tc.name, got, want)
		}
	}
}

// TestNoReuse: a 5-point star under block merging by 2 along x loads 8 values for its 2 points
// (4 a point) where each point alone loads 5, so with NoReuse 1 the on-chip cycles grow by 5/4
// and the issued instructions by (5+5+4)/(5+4+4); an OC without block merging is unchanged.
func TestNoReuse(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{8192, 8192, 1})
	g := gpu(t, "h100-sxm")
	bm := tuning(t, st, smart.Combination(smart.BM), smart.Setting{"bx": 32, "by": 4, "shared": 0, "const": 0, "ufx": 2, "ufy": 1, "bmx": 2, "bmy": 1})
	_, tm, err := analyse(st, bm, g, factsOf(st, loadsPerPoint))
	if err != nil {
		t.Fatal(err)
	}
	if got := tm.onChipNoReuse / tm.onChipCycles; math.Abs(got-5.0/4) > 1e-12 {
		t.Errorf("on-chip cycles without reuse over with: %.6g, want 1.25", got)
	}
	if got := tm.issueNoReuse / tm.issueCycles; math.Abs(got-14.0/13) > 1e-12 {
		t.Errorf("issue cycles without reuse over with: %.6g, want 14/13", got)
	}
	m, err := newMachine(g)
	if err != nil {
		t.Fatal(err)
	}
	off := literature(m)
	on := off
	on.NoReuse = 1
	base := tuning(t, st, smart.Combination(0), smart.Setting{"bx": 32, "by": 4, "shared": 0, "const": 0})
	for _, tc := range []struct {
		name   string
		t      smart.Tuning
		slower bool
	}{{"block merging", bm, true}, {"no merging", base, false}} {
		a, err := ModelWith(st, tc.t, g, &off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ModelWith(st, tc.t, g, &on)
		if err != nil {
			t.Fatal(err)
		}
		if tc.slower && !(b.OnChipMs > a.OnChipMs) || !tc.slower && b != a {
			t.Errorf("%s: on-chip %.6g ms with NoReuse 1 against %.6g", tc.name, b.OnChipMs, a.OnChipMs)
		}
	}
}

// A Modeler gives exactly ModelWith's estimates, its errors included, however the settings it
// was asked before share their loads per point: one Modeler answers every combination with
// several merge factors and streaming axes, in an order that revisits each key.
func TestModelerMatchesModelWith(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, st := range []*smart.Stencil{star(t, 3, 4, smart.Float64, [3]int{256, 256, 256}), star(t, 2, 3, smart.Float32, [3]int{4096, 4096, 1})} {
		for _, g := range []smart.GPU{gpu(t, "a100"), gpu(t, "t4")} {
			m := NewModeler(st, g, nil)
			for range 2 {
				for _, oc := range smart.Combinations() {
					tu := tuning(t, st, oc, DefaultSetting(st, oc))
					for a := range st.Dims {
						tu.Merge[a] = 1 << rng.IntN(3)
					}
					if oc.Has(smart.ST) {
						tu.StreamAxis = rng.IntN(st.Dims)
					}
					want, werr := ModelWith(st, tu, g, nil)
					got, err := m.Model(tu)
					if fmt.Sprint(err) != fmt.Sprint(werr) || got != want {
						t.Fatalf("%s on %s under %s, merge %v, axis %d: Modeler %+v, %v; ModelWith %+v, %v", st.Name, g.Name, oc, tu.Merge, tu.StreamAxis, got, err, want, werr)
					}
				}
			}
		}
	}
}

// BenchmarkModeler models the settings a search visits, every combination with several merge
// factors and streaming axes, of a 3-D star of order 8 on an A100: ModelWith each time against
// one Modeler, which keeps the loads per point the settings share.
func BenchmarkModeler(b *testing.B) {
	offs := []smart.Offset{{}}
	for a := range 3 {
		for k := 1; k <= 8; k++ {
			var p, m smart.Offset
			p[a], m[a] = k, -k
			offs = append(offs, p, m)
		}
	}
	st, err := smart.NewStencil("star3d8r", 3, offs, nil, smart.Limits{MaxOrder: smart.MaxMaxOrder})
	if err != nil {
		b.Fatal(err)
	}
	g := gpu(b, "a100")
	var tus []smart.Tuning
	rng := rand.New(rand.NewPCG(5, 6))
	for range 8 {
		for _, oc := range smart.Combinations() {
			tu := tuning(b, st, oc, DefaultSetting(st, oc))
			for a := range 3 {
				tu.Merge[a] = 1 << rng.IntN(3)
			}
			if oc.Has(smart.ST) {
				tu.StreamAxis = rng.IntN(3)
			}
			tus = append(tus, tu)
		}
	}
	b.Run("ModelWith", func(b *testing.B) {
		for b.Loop() {
			for _, tu := range tus {
				ModelWith(st, tu, g, nil)
			}
		}
	})
	b.Run("Modeler", func(b *testing.B) {
		for b.Loop() {
			m := NewModeler(st, g, nil)
			for _, tu := range tus {
				m.Model(tu)
			}
		}
	})
}

// The registers an estimate says the occupancy counts are those its blocks per SM follow from:
// the estimate's own with the literature's constants, scaled by RegScale with a calibration.
func TestOccRegs(t *testing.T) {
	st := star(t, 3, 1, smart.Float64, [3]int{512, 512, 512})
	g := gpu(t, "a100")
	tu := tuning(t, st, smart.Combination(smart.ST|smart.TB), smart.Setting{"bx": 32, "by": 8, "bz": 1, "shared": 1, "const": 0, "sd": 3, "sb": 64, "ufx": 1, "ufy": 1, "ufz": 1, "tt": 2})
	m, err := newMachine(g)
	if err != nil {
		t.Fatal(err)
	}
	lit, err := Model(st, tu, g)
	if err != nil {
		t.Fatal(err)
	}
	cal := literature(m)
	cal.RegScale = 1.7
	scaled, err := ModelWith(st, tu, g, &cal)
	if err != nil {
		t.Fatal(err)
	}
	regs := lit.Usage.RegsPerThread
	for _, tc := range []struct {
		est  Estimate
		want int
	}{{lit, regs}, {scaled, int(math.Ceil(1.7 * float64(regs)))}} {
		if tc.est.OccRegs != tc.want {
			t.Errorf("occupancy registers %d; want %d (estimate %d)", tc.est.OccRegs, tc.want, regs)
		}
		if o := m.occupancyOf(tc.est.Usage.Threads, tc.est.OccRegs, tc.est.Usage.SharedBytes); o.blocksPerSM != tc.est.BlocksPerSM {
			t.Errorf("%d blocks per SM from %d registers; the estimate says %d", o.blocksPerSM, tc.est.OccRegs, tc.est.BlocksPerSM)
		}
	}
}

// TestL2Cycles: every block reads its whole input region through L2, halos included, and the
// output goes back through it: for a 2-D order-1 star streamed along y one row a block (sb=1),
// 256 wide, on an 8192x8192 float64 grid, 32 x 8192 blocks of 258 x 3 elements plus the grid's
// 8192^2 points, 8 bytes each (computed by hand). With L2Cycles c the L2 part is c SM cycles a
// 32-byte sector, the SMs sharing them, and such short streams are L2-bound.
func TestL2Cycles(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{8192, 8192, 1})
	g := gpu(t, "h100-sxm")
	short := tuning(t, st, smart.Combination(smart.ST), smart.Setting{"bx": 256, "by": 1, "shared": 1, "const": 0, "sd": 2, "sb": 1, "ufx": 1, "ufy": 1})
	_, tm, err := analyse(st, short, g, factsOf(st, loadsPerPoint))
	if err != nil {
		t.Fatal(err)
	}
	if want := 8.0 * (32*8192*258*3 + 8192*8192); tm.l2Bytes != want {
		t.Errorf("L2 bytes %.0f, want %.0f", tm.l2Bytes, want)
	}
	m, err := newMachine(g)
	if err != nil {
		t.Fatal(err)
	}
	off := literature(m)
	off.Narrow = 1 // the rows' sectors count on L2 as on DRAM
	on := off
	on.L2Cycles = 4
	a, err := ModelWith(st, short, g, &off)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ModelWith(st, short, g, &on)
	if err != nil {
		t.Fatal(err)
	}
	if b.Bound != "L2" || !(b.TimeMs > a.TimeMs) {
		t.Errorf("sb=1 with L2Cycles 4: bound %s, %.4g ms (without: %s, %.4g ms); want L2-bound and slower", b.Bound, b.TimeMs, a.Bound, a.TimeMs)
	}
	// The H200 is the H100's die with more and faster memory: the same L2 time, less DRAM time.
	h200 := gpu(t, "h200")
	c, err := ModelWith(st, short, h200, &on)
	if err != nil {
		t.Fatal(err)
	}
	if c.L2Ms != b.L2Ms || !(c.DRAMMs < b.DRAMMs) {
		t.Errorf("H200: L2 %.6g ms, DRAM %.6g ms; want the H100's L2 (%.6g ms) and less than its DRAM (%.6g ms)", c.L2Ms, c.DRAMMs, b.L2Ms, b.DRAMMs)
	}
	// The sectors over the SMs at their clock, the row's sector efficiency and the wave's, per step.
	want := on.L2Cycles * tm.l2Bytes / 32 / m.sms / m.clock / math.Pow(tm.sectorEff, on.Narrow) / math.Pow(b.WaveEff, on.WavePower) / tm.steps * 1e3
	if got := b.TimeMs - b.BarrierMs - b.LaunchMs; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("L2-bound time %.6g ms, want %.6g", got, want)
	}
}

// TestStreamReuse: a block streaming along x reads each row one element a plane; StreamReuse 1
// counts the sectors over the run the thread walks (sb + 2h elements) and each load as bringing
// a sector's worth ahead. For sb=64 and order 1 in float64 the run is 66 elements, 528 bytes:
// sector efficiency 528/560 against 8/40, and 32 bytes a load against 8. With DRAM latency
// hidden the DRAM time falls by the efficiencies' ratio alone, with it exposed by 4 more;
// StreamReuse 0 leaves the estimate as it was, and a block streaming along y is unchanged.
func TestStreamReuse(t *testing.T) {
	st := star(t, 2, 1, smart.Float64, [3]int{8192, 8192, 1})
	g := gpu(t, "h100-sxm")
	alongX := tuning(t, st, smart.Combination(smart.ST), smart.Setting{"bx": 1, "by": 256, "shared": 1, "const": 0, "sd": 1, "sb": 64, "ufx": 1, "ufy": 1})
	alongY := tuning(t, st, smart.Combination(smart.ST), smart.Setting{"bx": 256, "by": 1, "shared": 1, "const": 0, "sd": 2, "sb": 64, "ufx": 1, "ufy": 1})
	m, err := newMachine(g)
	if err != nil {
		t.Fatal(err)
	}
	effs := (8.0 / 40) / (528.0 / 560)
	for _, tc := range []struct {
		name    string
		latency float64 // DRAM cycles
		ratio   float64 // DRAM time with StreamReuse 1 over 0
	}{{"latency hidden", 1, effs}, {"latency exposed", 1e6, effs / 4}} {
		off := literature(m)
		off.Narrow, off.DRAMLatency = 1, tc.latency
		on := off
		on.StreamReuse = 1
		a, err := ModelWith(st, alongX, g, &off)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ModelWith(st, alongX, g, &on)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.DRAMMs / a.DRAMMs; math.Abs(got/tc.ratio-1) > 1e-9 {
			t.Errorf("%s: DRAM time with reuse over without %.6g, want %.6g", tc.name, got, tc.ratio)
		}
		y0, _ := ModelWith(st, alongY, g, &off)
		y1, _ := ModelWith(st, alongY, g, &on)
		if y0 != y1 {
			t.Errorf("%s: streaming along y changed with StreamReuse: %+v against %+v", tc.name, y1, y0)
		}
	}
}
