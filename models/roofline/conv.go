package roofline

import (
	"fmt"
	"math"

	"smart"
	"smart/internal/bit"
	"smart/internal/intmath"
)

// ConvProblem is Kernel Tuner's 2-D convolution benchmark (convolution_milo of the Kernel Tuner
// benchmark hub, the kernel of data/kernel-tuner/convolution_milo): a
// FilterW x FilterH float32 filter in constant memory applied to a Width x Height float32 image
// stored with a border of the filter's size. A block of BlockX x BlockY threads computes
// BlockX*TileX x BlockY*TileY outputs, each thread TileX x TileY of them a block apart, reading
// the input either from global memory (plain or read-only loads) or from a shared-memory copy of
// the block's input region (optionally padded against bank conflicts).
//
// It is a foreign kernel: smart does not generate it, so its model is separate from the stencil
// model, but it is built from the same machine view (rates per SM and cycle, occupancy, waves).
type ConvProblem struct {
	Width, Height    int
	FilterW, FilterH int
}

// KernelTunerConv is the problem size of the Kernel Tuner data set: a 15x15 filter on 4096^2.
func KernelTunerConv() ConvProblem {
	return ConvProblem{Width: 4096, Height: 4096, FilterW: 15, FilterH: 15}
}

// ConvSetting is one configuration of the convolution's tunable parameters.
type ConvSetting struct {
	BlockX, BlockY int  // threads per block (block_size_x, block_size_y)
	TileX, TileY   int  // outputs per thread along x and y (tile_size_x, tile_size_y)
	ReadOnly       bool // loads through the read-only cache (read_only, __ldg)
	Padding        bool // padding columns in shared memory against bank conflicts (use_padding)
	Shared         bool // input region staged in shared memory (use_shmem)
}

// ConvSettingOf reads the Kernel Tuner parameters of a configuration.
func ConvSettingOf(s smart.Setting) (ConvSetting, error) {
	need := []string{"block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding", "use_shmem"}
	for _, k := range need {
		if _, ok := s[k]; !ok {
			return ConvSetting{}, fmt.Errorf("convolution setting %s: parameter %s is missing", s, k)
		}
	}
	return ConvSetting{BlockX: s["block_size_x"], BlockY: s["block_size_y"], TileX: s["tile_size_x"], TileY: s["tile_size_y"],
		ReadOnly: s["read_only"] != 0, Padding: s["use_padding"] != 0, Shared: s["use_shmem"] != 0}, nil
}

func (s ConvSetting) String() string {
	return fmt.Sprintf("block %dx%d tile %dx%d read_only=%d padding=%d shmem=%d", s.BlockX, s.BlockY, s.TileX, s.TileY,
		bit.Of(s.ReadOnly), bit.Of(s.Padding), bit.Of(s.Shared))
}

// Guarded reports whether the kernel takes its bounds-checked path: when the tile of a block
// does not divide the image, every staged load and every store tests its coordinates.
func (p ConvProblem) Guarded(s ConvSetting) bool {
	return p.Width%(s.BlockX*s.TileX) != 0 || p.Height%(s.BlockY*s.TileY) != 0
}

// ConvCalibration holds the constants of the convolution model that were fitted on one GPU's
// measurements (FitConv). They describe how that GPU's compiler and hardware treat the code
// paths the first-principles part cannot see into: the shared-memory path as a whole and the
// bounds-checked path taken when the tiles do not divide the image. The zero value, and a nil
// pointer, mean no calibration: every factor is 1.
type ConvCalibration struct {
	Toolchain   string  `json:"toolchain"`    // vendor whose compiler produced the measurements ("NVIDIA": nvcc, "AMD": hipcc)
	FittedOn    string  `json:"fitted_on"`    // GPU and number of configurations the constants were fitted on
	Shared      float64 `json:"shared"`       // cost factor of the shared-memory path
	GuardShared float64 `json:"guard_shared"` // slowdown of the bounds-checked shared-memory path, one output per thread
	GuardGlobal float64 `json:"guard_global"` // slowdown of the bounds-checked path without shared memory, one output per thread
	GuardTile   float64 `json:"guard_tile"`   // added slowdown of the bounds-checked path per output point beyond the first
	// Machine, when set, is a stencil calibration (FitStencil) whose latencies, rates and costs
	// replace the architecture's literature constants on NVIDIA GPUs (it was fitted on kernels
	// nvcc compiled); the code-path factors above are then fitted on top of it.
	Machine *Calibration `json:"machine,omitempty"`
}

// machineTerms are the latencies, rates and costs an estimate on m reads: the stencil
// calibration's where c carries one and m is NVIDIA's, else the literature's (machine.go); and
// the launch overhead in seconds, the literature's as machine.go has it (through LaunchUs it
// would round, and the uncalibrated estimates would move in their last digits).
func (c *ConvCalibration) machineTerms(m machine) (Calibration, float64) {
	if c == nil || c.Machine == nil || m.amd {
		return literature(m), m.launchSeconds
	}
	return *c.Machine, c.Machine.LaunchUs * 1e-6
}

// factor is the calibrated slowdown of setting s (1 without calibration).
func (c *ConvCalibration) factor(p ConvProblem, s ConvSetting) float64 {
	if c == nil {
		return 1
	}
	f := 1.0
	if s.Shared {
		f *= positive(c.Shared)
	}
	if p.Guarded(s) {
		guard := c.GuardGlobal
		if s.Shared {
			guard = c.GuardShared
		}
		f *= max(guard, 1) + c.GuardTile*float64(s.TileX*s.TileY-1)
	}
	return f
}

// positive returns v, or 1 for an unset (zero) factor.
func positive(v float64) float64 {
	if v > 0 {
		return v
	}
	return 1
}

// ConvEstimate is the modelled time of one configuration with the quantities behind it.
type ConvEstimate struct {
	TimeMs      float64 `json:"time_ms"`
	Bound       string  `json:"bound"` // "compute", "issue", "load", "memory" or "latency"
	RegsPerThr  int     `json:"regs_per_thread"`
	SharedBytes int     `json:"shared_bytes"`
	Occupancy   float64 `json:"occupancy"`
	BlocksPerSM int     `json:"blocks_per_sm"`
	Waves       float64 `json:"waves"`
	LoadsPerOut float64 `json:"loads_per_output"` // loads a thread issues per output point in the compute loop
	DRAMBytes   float64 `json:"dram_bytes"`
	Calibrated  float64 `json:"calibrated_factor"` // the factor the calibration applied (1 without)
}

// unionSpan is how many distinct rows (or columns) a thread reads along one axis: tile points
// a block apart, each reading filter consecutive ones.
func unionSpan(tile, block, filter int) int {
	if block >= filter {
		return tile * filter
	}
	return (tile-1)*block + filter
}

// maxConvFactor bounds each block and tile size Estimate takes: no GPU runs a block wider than
// 1024 threads, and the bound keeps the products of the sizes far from overflowing an int.
const maxConvFactor = 1 << 12

// maxConvImage bounds the image's width and height, for the same reason (2^40 pixels).
const maxConvImage = 1 << 20

// Register budget for values kept live between reuses; beyond it the compiler reloads.
const (
	convBaseRegs = 24
	convLiveCap  = 200
)

// Estimate models one configuration on g. A configuration that cannot run on g (too many
// threads, registers or shared memory) gets the error Usage.Fits gives.
func (p ConvProblem) Estimate(s ConvSetting, g smart.GPU, cal *ConvCalibration) (ConvEstimate, error) {
	if s.BlockX < 1 || s.BlockY < 1 || s.TileX < 1 || s.TileY < 1 {
		return ConvEstimate{}, fmt.Errorf("convolution setting %s: block and tile sizes must be positive", s)
	}
	if max(s.BlockX, s.BlockY, s.TileX, s.TileY) > maxConvFactor {
		return ConvEstimate{}, fmt.Errorf("convolution setting %s: block and tile sizes above %d fit no GPU's block or image", s, maxConvFactor)
	}
	if min(p.Width, p.Height, p.FilterW, p.FilterH) < 1 || max(p.Width, p.Height) > maxConvImage || max(p.FilterW, p.FilterH) > maxConvFactor {
		return ConvEstimate{}, fmt.Errorf("convolution of a %dx%d image with a %dx%d filter: the image must be 1 to %d wide and high, the filter 1 to %d", p.Width, p.Height, p.FilterW, p.FilterH, maxConvImage, maxConvFactor)
	}
	m, err := newMachine(g)
	if err != nil {
		return ConvEstimate{}, err
	}
	mc, launch := cal.machineTerms(m)
	threads := s.BlockX * s.BlockY
	points := s.TileX * s.TileY
	taps := p.FilterW * p.FilterH
	rows := unionSpan(s.TileY, s.BlockY, p.FilterH)
	cols := unionSpan(s.TileX, s.BlockX, p.FilterW)
	sharedW := s.BlockX*s.TileX + p.FilterW - 1
	sharedH := s.BlockY*s.TileY + p.FilterH - 1
	if s.Shared && s.Padding && s.BlockX%32 != 0 && (sharedW-s.BlockX)%32 != 0 {
		sharedW += (32 - (p.FilterW - 1 + s.BlockX*s.TileX - s.BlockX)) & 31
	}
	sharedBytes := 0
	if s.Shared {
		sharedBytes = sharedH * sharedW * 4
	}

	// With the loops unrolled, the compiler keeps a loaded value in a register for its later
	// uses by the thread's other tile points (common-subexpression elimination) while registers
	// last. nvcc does this for shared-memory and read-only loads, not for plain global loads
	// (it re-issues those); hipcc for all.
	full := float64(taps * points)
	loads := full
	live := 0
	if s.Shared || s.ReadOnly || m.amd {
		distinct := float64(rows * cols)
		// A value stays live from the first tile row that uses it to the last: the
		// compiler holds about one filter row of columns per tile row.
		live = cols * s.TileY
		lost := 0.0
		if live > convLiveCap {
			lost = float64(live-convLiveCap) / float64(live)
			live = convLiveCap
		}
		loads = distinct + (full-distinct)*lost
	}
	regs := convBaseRegs + points + live
	u := smart.Usage{Threads: threads, RegsPerThread: regs, SharedBytes: sharedBytes}
	if err := u.Fits(g); err != nil {
		return ConvEstimate{}, err
	}
	occ := m.occupancyOf(threads, regs, sharedBytes)
	if occ.blocksPerSM == 0 {
		return ConvEstimate{}, fmt.Errorf("a block of %d threads with %d registers each and %d bytes of shared memory does not fit on one of the %s's SMs", threads, regs, sharedBytes, g.Name)
	}

	// Warp instructions and load-pipe cycles of one block.
	w := m.warp
	warps := float64(intmath.CeilDiv(threads, w))
	inPitch := p.Width + p.FilterW - 1
	fmaInstr := warps * full
	ldInstr := warps * loads
	var ldCycles float64
	if s.Shared {
		ldCycles = ldInstr * m.convPasses(true, s.BlockX, sharedW, p.FilterW)
		stage := warps * float64(intmath.CeilDiv(sharedH, s.BlockY)*intmath.CeilDiv(s.BlockX*s.TileX+p.FilterW-1, s.BlockX))
		ldCycles += stage * (m.convPasses(false, s.BlockX, inPitch, 1) + m.convPasses(true, s.BlockX, sharedW, 1))
		ldInstr += 2 * stage
	} else {
		c := m.convPasses(false, s.BlockX, inPitch, p.FilterW)
		if s.ReadOnly {
			c *= m.readOnlyPenalty
		}
		ldCycles = ldInstr * c
	}
	stInstr := warps * float64(points)
	ldCycles += stInstr * m.convPasses(false, s.BlockX, p.Width, 1)
	other := 0.0
	if p.Guarded(s) {
		// Bounds checks: two compares and a select or branch per guarded access (staged loads
		// and stores). AMD runs them on the vector ALU beside the FMAs.
		other = stInstr
		if s.Shared {
			other += warps * float64(intmath.CeilDiv(sharedH, s.BlockY)*intmath.CeilDiv(sharedW, s.BlockX))
		}
		other *= 3
		if m.amd {
			fmaInstr += other
		}
	}

	blocks := float64(intmath.CeilDiv(p.Width, s.BlockX*s.TileX) * intmath.CeilDiv(p.Height, s.BlockY*s.TileY))
	perSM := blocks / m.sms
	fmaCycles := perSM * fmaInstr * float64(w) / m.fp32Lanes
	latency, ldScale := mc.L1Latency, mc.L1Scale
	if s.Shared {
		latency, ldScale = mc.OnChipLatency, mc.OnChipScale
	}
	ldPipe := perSM * ldCycles * ldScale
	issue := 0.0
	if m.issuePerSM > 0 {
		issue = mc.ComputeScale * perSM * (fmaInstr + ldInstr + stInstr + other) / m.issuePerSM
	}
	// Latency hiding: the FMA pipe needs fmaLatency cycles' worth of independent FMAs in flight
	// (each warp has one chain per tile point); the load pipe needs its latency covered by the
	// loads the active warps have outstanding. Unrolled code issues up to eight ahead, as far as
	// free registers can receive them (eight registers per load in flight of slack).
	loadsInFlight := math.Max(1, math.Min(8, float64(g.MaxRegsPerThread-regs)/8))
	fmaEff := math.Min(1, float64(occ.warps)*float64(points)/(m.fmaLatency*m.fp32Lanes/float64(w)))
	avgLd := ldCycles / math.Max(ldInstr+stInstr, 1)
	ldEff := math.Min(1, float64(occ.warps)*loadsInFlight*avgLd/latency)

	est := ConvEstimate{RegsPerThr: regs, SharedBytes: sharedBytes, Occupancy: occ.fraction, BlocksPerSM: occ.blocksPerSM, LoadsPerOut: loads / float64(points)}
	waves, waveEff := m.waves(int(blocks), occ)
	est.Waves = waves
	cycles, bound := fmaCycles/fmaEff, "compute"
	if fmaEff < 1 {
		bound = "latency"
	}
	if c := ldPipe / ldEff; c > cycles {
		cycles, bound = c, "load"
		if ldEff < 1 {
			bound = "latency"
		}
	}
	if issue > cycles {
		cycles, bound = issue, "issue"
	}
	body := cycles / m.clock / waveEff

	// DRAM: the output, the input once, and the halo re-reads L2 does not catch: neighbours
	// along x run together; those along y are a row of blocks apart.
	region := float64(sharedH * (s.BlockX*s.TileX + p.FilterW - 1))
	tile := float64(s.BlockX * s.TileX * s.BlockY * s.TileY)
	rowBytes := float64(intmath.CeilDiv(p.Width, s.BlockX*s.TileX)) * region * 4
	miss := 1 - math.Min(1, 0.5*m.l2/rowBytes)
	est.DRAMBytes = 4*float64(p.Width*p.Height) + 4*float64(inPitch*(p.Height+p.FilterH-1)) + 4*blocks*(region-tile)*miss
	if t := est.DRAMBytes / mc.bandwidth(m); t > body {
		body, bound = t, "memory"
	}
	if s.Shared {
		body += perSM / float64(occ.blocksPerSM) * mc.BarrierTiled / m.clock
	}
	est.Calibrated = cal.factor(p, s)
	est.TimeMs = (body*est.Calibrated + launch) * 1e3
	est.Bound = bound
	return est, nil
}

// convPasses averages the shared-memory (shared) or L1 cycles of one warp's 4-byte load in the
// compute loop over the filter's columns.
func (m machine) convPasses(shared bool, blockX, pitch, filterW int) float64 {
	total := 0.0
	for j := range filterW {
		if shared {
			total += m.bankPasses(blockX, pitch, 1, 4, j)
		} else {
			total += m.linePasses(blockX, pitch, 1, 4, j)
		}
	}
	return total / float64(filterW)
}
