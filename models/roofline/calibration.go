package roofline

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"smart"
)

// terms are the counts of one variant that the free constants turn into a time: everything
// Model computes before it needs a constant no datasheet gives. Fitting evaluates them once per
// measured variant and the constants many times.
type terms struct {
	m                           machine
	steps                       float64 // fused per launch
	shared, streaming           bool
	threads, regs, regsMax      int // per block, estimated per thread, most a thread can have
	sharedBytes, blocks         int
	dram                        float64 // bytes per launch
	elem                        float64 // bytes of an element
	inFlight                    float64 // loads a thread keeps in flight
	pass                        float64 // on-chip passes per warp load
	onChipCycles                float64 // per SM per launch, before latency
	fmaCycles, issueCycles      float64 // per SM per launch
	ilp, lanes                  float64 // independent FMA chains per thread; FMA lanes per SM
	barriers                    float64 // __syncthreads per SM per launch
	prefetch                    bool    // which overlaps half of a barrier's wait
	spilled                     float64 // registers per thread beyond what the block gives it
	localPerPoint               float64 // 32-bit values in local memory per point a thread computes (Usage.LocalRegs)
	computed                    float64 // points computed per launch
	sectorEff                   float64 // bytes a block's rows use of the 32-byte sectors they touch
	streamRun                   float64 // elements a thread walks along x, streaming along x; 0 otherwise
	l2Bytes                     float64 // bytes between L2 and the SMs per launch: every block's input region, and the output
	onChipNoReuse, issueNoReuse float64 // onChipCycles and issueCycles without block merging's shared loads
	moved                       float64 // bytes a launch must move at least: its input read once, its output written once
	fmas                        float64 // FMAs a step must do at least: one per point access of every grid point
	fp32                        bool    // on the FP32 pipes (float32), not the FP64 ones
	oc                          smart.Combination
}

// Calibration holds the stencil model's free constants: the rates, latencies and costs that no
// datasheet lists. The literature's (literature) are Model's; a fit to measurements
// (FitStencil) replaces them.
type Calibration struct {
	// CopyEfficiency is the share of the GPU's measured device-to-device copy bandwidth a
	// stencil's DRAM traffic reaches, where CopyGBs has the GPU; PeakEfficiency the share of
	// the catalogue's peak elsewhere.
	CopyEfficiency float64            `json:"copy_efficiency"`
	PeakEfficiency float64            `json:"peak_efficiency"`
	CopyGBs        map[string]float64 `json:"copy_gbs,omitempty"` // measured, bytes read plus written, by catalogue GPU
	DRAMLatency    float64            `json:"dram_latency_cycles"`
	OnChipLatency  float64            `json:"on_chip_latency_cycles"` // shared memory load
	L1Latency      float64            `json:"l1_latency_cycles"`
	OnChipScale    float64            `json:"on_chip_scale"` // on the shared memory pipe's cycles
	L1Scale        float64            `json:"l1_scale"`      // on the L1 pipe's cycles (global loads, no shared memory)
	// ComputeScale multiplies the schedulers' cycles: the instructions the count per point
	// (FMAs, loads, indexing) misses. The FMA pipe's cycles are the datasheet's and stay: on the
	// H100 the two are too close to tell apart, and scaling the FMAs would make every GPU with
	// few FP64 lanes (T4, L4, A10G, RTX cards) several times slower than its FP64 peak allows.
	ComputeScale float64 `json:"compute_scale"`
	// BarrierStream and BarrierTiled are the cycles a __syncthreads costs the block that waits,
	// for streamed planes and for staged tiles (and fused steps).
	BarrierStream float64 `json:"barrier_stream_cycles"`
	BarrierTiled  float64 `json:"barrier_tiled_cycles"`
	LaunchUs      float64 `json:"launch_us"`
	// SpillCycles is what a spilled register costs per computed point (a local-memory store and
	// load), in cycles of an SM.
	SpillCycles float64 `json:"spill_cycles"`
	// LocalCycles is what a value of the arrays a kernel keeps in local memory costs per point
	// computed (smart.Usage.LocalRegs, spread over the thread's points), in cycles of an SM; 0
	// (the literature's, and a calibration from before the term) ignores them.
	LocalCycles float64 `json:"local_cycles"`
	// Overlap is how the DRAM, L2, on-chip and compute times of a launch combine: 0 is the slowest
	// of them (perfect overlap), p > 0 their p-norm (p = 1: no overlap at all).
	Overlap float64 `json:"overlap"`
	// Narrow is the power of the sector efficiency of a block's rows that divides the DRAM and
	// L2 times (0: narrow blocks cost nothing more).
	Narrow float64 `json:"narrow"`
	// NoReuse is the share, in log terms, of the loads block merging shares between a thread's
	// points that are issued anyway (0: all shared, as counted).
	NoReuse float64 `json:"no_reuse,omitempty"`
	// RegScale multiplies the estimated registers per thread in the occupancy (1: the
	// estimate; the compiler may allocate more), up to what the block lets a thread have.
	RegScale float64 `json:"reg_scale"`
	// OCScale multiplies the time of each OC's kernels (by name; missing: 1): what the code of
	// an optimization costs that no term counts.
	OCScale map[string]float64 `json:"oc_scale,omitempty"`
	// StreamReuse is how much of the x run a block streaming along x walks its 32-byte sectors
	// serve, as a power of the run (0: none, each plane's element brings a sector of its own;
	// 1: the whole run, as a block reading rows that long): a sector fetched for one plane holds
	// the next planes' elements, which then come from cache, and each load brings them ahead.
	StreamReuse float64 `json:"stream_reuse,omitempty"`
	// L2Cycles is the SM cycles a 32-byte sector between L2 and the SMs takes, each SM moving
	// its share (0: not counted, as before the term): every block reads its whole input region
	// through L2, halos included, which short streams and small tiles multiply. In SM cycles,
	// not as a share of DRAM's rate: GPUs of one die (the H100 and H200) share an L2 whatever
	// memory they carry.
	L2Cycles float64 `json:"l2_cycles,omitempty"`
	// WavePower is the power of the last wave's efficiency that divides the time (1: a partial
	// wave takes as long as a full one; below 1, its blocks run faster with the GPU to
	// themselves).
	WavePower float64 `json:"wave_power"`
}

// Check reports the first constant of c that no fit gives: outside the bounds FitStencil keeps
// it in, not a finite number, or a copy bandwidth or OC factor that is not positive. A file
// whose constants fail it is corrupt or edited by hand.
func (c *Calibration) Check() error {
	for _, f := range fitted {
		v, hi := *f.field(c), max(f.hi, f.older)
		if math.IsNaN(v) || v < f.lo || v > hi {
			return fmt.Errorf("calibration constant %s is %g; a fit keeps it within %g-%g", f.name, v, f.lo, hi)
		}
	}
	if !(c.PeakEfficiency > 0 && c.PeakEfficiency <= 1.2) {
		return fmt.Errorf("calibration constant peak_efficiency is %g; it must lie in (0, 1.2]", c.PeakEfficiency)
	}
	for _, m := range []struct {
		name string
		v    map[string]float64
		key  func(string) error // nil: any key
	}{{"copy_gbs", c.CopyGBs, nil}, {"oc_scale", c.OCScale, ocScaleKey}} {
		for _, k := range slices.Sorted(maps.Keys(m.v)) {
			if v := m.v[k]; !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("calibration %s[%q] is %g; it must be a positive number", m.name, k, v)
			}
			if m.key == nil {
				continue
			}
			if err := m.key(k); err != nil {
				return fmt.Errorf("calibration %s[%q]: %w", m.name, k, err)
			}
		}
	}
	return nil
}

// ocScaleKey refuses an oc_scale key that is not an OC's name as smart writes it: the model
// looks an OC's factor up by that name, so any other key would leave its time unscaled without a
// word.
func ocScaleKey(k string) error {
	oc, err := smart.ParseCombination(k)
	switch {
	case err != nil:
		return err
	case oc.String() != k:
		return fmt.Errorf("name the OC %s, as smart writes it", oc)
	}
	return nil
}

// literature is Model's calibration: the architecture constants of machine.go, no spill cost,
// perfect overlap.
func literature(m machine) Calibration {
	return Calibration{CopyEfficiency: dramEfficiency, PeakEfficiency: dramEfficiency, DRAMLatency: m.dramLatency,
		OnChipLatency: m.onChipLatency, L1Latency: m.l1Latency, OnChipScale: 1, L1Scale: 1, ComputeScale: 1,
		BarrierStream: m.barrierCycles, BarrierTiled: m.barrierCycles, LaunchUs: m.launchSeconds * 1e6, WavePower: 1, RegScale: 1}
}

// bandwidth is the DRAM rate the calibration gives tm's GPU, bytes per second of one die.
func (c *Calibration) bandwidth(m machine) float64 {
	if gbs, ok := c.CopyGBs[m.gpu.Name]; ok && gbs > 0 {
		return gbs * 1e9 / float64(max(m.gpu.Dies, 1)) * c.CopyEfficiency
	}
	return m.bandwidth * c.PeakEfficiency
}

// copyRate is the device-to-device copy bandwidth of tm's GPU, bytes per second of one die:
// measured where CopyGBs has the GPU, else the catalogue's peak times the share of it that the
// measured GPUs' copies reach (the whole peak for the literature's calibration, which measured
// none).
func (c *Calibration) copyRate(m machine) float64 {
	if gbs, ok := c.CopyGBs[m.gpu.Name]; ok && gbs > 0 {
		return gbs * 1e9 / float64(max(m.gpu.Dies, 1))
	}
	share := 1.0
	if c.CopyEfficiency > 0 && c.PeakEfficiency > 0 {
		share = math.Min(1, c.PeakEfficiency/c.CopyEfficiency)
	}
	return m.bandwidth * share
}

// The floors a step's time never goes below.
const (
	// CopyFloor: reading the input and writing the output once per launch at the GPU's copy
	// bandwidth.
	CopyFloor = "copy floor"
	// FMAFloor: one FMA per point access of every grid point at the GPU's peak FMA rate of the
	// element type (a GPU with few FP64 lanes, a T4 or an RTX card, runs a float64 stencil at
	// 1/32 or 1/64 of its FP32 rate).
	FMAFloor = "FMA floor"
)

// floor is the least time of a step, and which floor it is: moved bytes a launch of steps fused
// steps must read and write at the copy bandwidth, or fmas FMAs a step must do at the peak rate.
func (c *Calibration) floor(moved, steps, fmas float64, fp32 bool, m machine) (float64, string) {
	copyMs := moved / c.copyRate(m) / steps * 1e3
	lanes := m.fp64Lanes
	if fp32 {
		lanes = m.fp32Lanes
	}
	if fmaMs := fmas / (lanes * m.sms * m.clock) * 1e3; fmaMs > copyMs {
		return fmaMs, FMAFloor
	}
	return copyMs, CopyFloor
}

// Floor is the least time per step of st on g with tt fused steps a launch (1 without temporal
// blocking), with cal's copy bandwidths (nil: the literature's, the catalogue's peak): Estimate's
// FloorMs without the rest of the model, for screening many settings.
func Floor(st *smart.Stencil, tt int, g smart.GPU, cal *Calibration) (float64, error) {
	m, err := newMachine(g)
	if err != nil {
		return 0, err
	}
	c := literature(m)
	if cal != nil {
		c = *cal
	}
	points := float64(st.GridPoints())
	ms, _ := c.floor(2*points*float64(st.Dtype.Size()), float64(max(tt, 1)), points*float64(st.NNZ()), st.Dtype == smart.Float32, m)
	return ms, nil
}

// apply turns tm into est's times with the calibration's constants.
func (c *Calibration) apply(est *Estimate, tm terms) {
	m := tm.m
	regs := tm.regs
	if c.RegScale > 0 && c.RegScale != 1 {
		regs = min(int(math.Ceil(float64(regs)*c.RegScale)), tm.regsMax)
	}
	occ := m.occupancyOf(tm.threads, regs, tm.sharedBytes)
	est.OccRegs, est.Occupancy, est.BlocksPerSM, est.OccLimit = regs, occ.fraction, occ.blocksPerSM, occ.limit
	est.Waves, est.WaveEff = m.waves(tm.blocks, occ)
	warps := float64(occ.warps)
	sectorEff, loadBytes := tm.sectorEff, tm.elem
	if tm.streamRun > 0 && c.StreamReuse > 0 {
		run := tm.elem * math.Pow(tm.streamRun, c.StreamReuse)
		sectorEff = run / (run + 32)
		loadBytes = tm.elem * math.Pow(math.Min(tm.streamRun, 32/tm.elem), c.StreamReuse)
	}
	narrow := math.Pow(sectorEff, c.Narrow)
	bytesInFlight := warps * m.sms * 32 * loadBytes * tm.inFlight
	dramEff := math.Min(1, bytesInFlight/(m.bandwidth*c.DRAMLatency/m.clock))
	latency, scale := c.L1Latency, c.L1Scale
	if tm.shared {
		latency, scale = c.OnChipLatency, c.OnChipScale
	}
	ldEff := math.Min(1, warps*tm.inFlight*tm.pass/latency)
	onChipCycles, issueCycles := tm.onChipCycles, tm.issueCycles
	if c.NoReuse > 0 && tm.onChipNoReuse > onChipCycles {
		onChipCycles = math.Pow(onChipCycles, 1-c.NoReuse) * math.Pow(tm.onChipNoReuse, c.NoReuse)
		issueCycles = math.Pow(issueCycles, 1-c.NoReuse) * math.Pow(tm.issueNoReuse, c.NoReuse)
	}
	fmaEff := math.Min(1, warps*tm.ilp/(m.fmaLatency*tm.lanes/32))
	parts := [4]struct {
		name string
		sec  float64
		eff  float64
	}{
		{"memory", tm.dram / (c.bandwidth(m) * dramEff * narrow), dramEff},
		{"on-chip", scale * onChipCycles / ldEff / m.clock, ldEff},
		{"compute", math.Max(tm.fmaCycles/fmaEff, c.ComputeScale*issueCycles) / m.clock, fmaEff},
		{"L2", c.L2Cycles * tm.l2Bytes / 32 / m.sms / m.clock / narrow, 1},
	}
	body := 0.0
	for _, p := range parts {
		if p.sec > body {
			body, est.Bound, est.LatencyEff = p.sec, p.name, p.eff
		}
	}
	if c.Overlap > 0 {
		sum := 0.0
		for _, p := range parts {
			sum += math.Pow(p.sec/body, c.Overlap)
		}
		body *= math.Pow(sum, 1/c.Overlap)
	}
	if est.LatencyEff < 0.5 {
		est.Bound = "latency" // the bound is occupancy more than the resource itself
	}
	body /= math.Pow(est.WaveEff, c.WavePower)
	body += (c.SpillCycles*tm.spilled + c.LocalCycles*tm.localPerPoint) * tm.computed / m.sms / m.clock

	barrier := 0.0
	if tm.barriers > 0 {
		exposed := c.BarrierTiled / float64(occ.blocksPerSM)
		if tm.streaming {
			exposed = c.BarrierStream / float64(occ.blocksPerSM)
		}
		if tm.prefetch {
			exposed /= 2
		}
		barrier = tm.barriers * exposed / m.clock
	}
	launch := c.LaunchUs * 1e-6
	est.DRAMMs = parts[0].sec / tm.steps * 1e3
	est.OnChipMs = parts[1].sec / tm.steps * 1e3
	est.L2Ms = parts[3].sec / tm.steps * 1e3
	est.ComputeMs = parts[2].sec / tm.steps * 1e3
	est.BarrierMs = barrier / tm.steps * 1e3
	est.LaunchMs = launch / tm.steps * 1e3
	est.TimeMs = (body + barrier + launch) / tm.steps * 1e3
	est.OCScale = 1
	if f, ok := c.OCScale[tm.oc.String()]; ok && f > 0 {
		est.TimeMs *= f
		est.OCScale = f
	}
	if launch > body {
		est.Bound = "launch"
	}
	// No kernel moves its grids faster than a copy does: whatever the constants, the time per
	// step stays at or above that floor.
	est.FloorMs, est.FloorBy = c.floor(tm.moved, tm.steps, tm.fmas, tm.fp32, m)
	if est.TimeMs < est.FloorMs {
		est.TimeMs, est.Bound = est.FloorMs, est.FloorBy
	}
}
