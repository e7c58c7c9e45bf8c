package roofline

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"smart"
	"smart/internal/intmath"
)

// machine is one die of a GPU as the formulas see it: rates per SM and cycle, sizes in bytes.
// Everything comes from the catalogue entry except the per-architecture constants of
// archConstants, which no datasheet lists (see README.md).
type machine struct {
	gpu       smart.GPU
	amd       bool
	sms       float64 // SMs (CUs) of one die
	clock     float64 // Hz (boost clock)
	warp      int
	fp32Lanes float64 // FP32 FMA lanes per SM: FP32 peak / (2 x SMs x clock)
	fp64Lanes float64
	bandwidth float64 // bytes/s of one die
	l2        float64 // bytes of one die
	archConstants
}

// archConstants are the per-architecture facts the model needs beyond the catalogue. Values are
// from vendor tuning guides and published microbenchmarks; README.md cites them.
type archConstants struct {
	issuePerSM      float64 // warp instructions issued per SM per cycle, all kinds together (NVIDIA); 0 where memory and ALU instructions issue separately (AMD)
	onChipBytes     float64 // shared memory (LDS) bytes per SM per cycle
	l1Bytes         float64 // L1 bytes per SM per cycle for cached global loads
	l1Line          int     // L1 line (bytes): a warp load costs one L1 pass per line it touches
	fmaLatency      float64 // cycles from an FMA to a dependent one
	onChipLatency   float64 // cycles of a shared memory (LDS) load
	l1Latency       float64 // cycles of an L1-hit global load
	dramLatency     float64 // cycles of a DRAM access
	readOnlyPenalty float64 // relative cost of a load through the read-only (texture) path
	launchSeconds   float64 // kernel launch overhead
	barrierCycles   float64 // cycles a __syncthreads costs the block that waits on it
	regGranularity  int     // registers are allocated per warp in multiples of this many per thread
}

// Defaults applied where a catalogue entry gives no hint. The DRAM efficiency is what a
// streaming kernel reaches on current GPUs (STREAM-like copy benchmarks reach 80-92% of peak).
const dramEfficiency = 0.85

// ErrVendor is returned for GPUs whose code the stencil model does not describe.
var ErrVendor = errors.New("the stencil model covers NVIDIA GPUs only: smart generates CUDA, which does not run on AMD GPUs")

func newMachine(g smart.GPU) (machine, error) {
	if g.SMs <= 0 || g.BoostClockMHz <= 0 || g.FP32TFLOPS <= 0 || g.BandwidthGBs <= 0 || g.WarpSize <= 0 {
		return machine{}, fmt.Errorf("GPU %q lacks SMs, clock, FP32 peak, bandwidth or warp size; complete its catalogue entry", g.Name)
	}
	dies := float64(max(g.Dies, 1))
	m := machine{
		gpu:       g,
		amd:       g.Vendor == "AMD",
		sms:       float64(g.SMs) / dies,
		clock:     float64(g.BoostClockMHz) * 1e6,
		warp:      g.WarpSize,
		bandwidth: g.BandwidthGBs * 1e9 / dies,
		l2:        g.L2MB * 1e6 / dies,
	}
	m.fp32Lanes = math.Round(g.FP32TFLOPS * 1e12 / (2 * float64(g.SMs) * m.clock))
	m.fp64Lanes = max(g.FP64TFLOPS*1e12/(2*float64(g.SMs)*m.clock), 1.0/16)
	if m.amd {
		// CDNA and RDNA issue vector ALU, LDS and vector memory instructions from separate
		// queues; a CU has 128 B/cycle of LDS bandwidth (AMD CDNA2 and RDNA whitepapers).
		m.archConstants = archConstants{onChipBytes: 128, l1Bytes: 64, l1Line: 64, fmaLatency: 8, onChipLatency: 64,
			l1Latency: 120, dramLatency: 700, readOnlyPenalty: 1, launchSeconds: 6e-6, barrierCycles: 64, regGranularity: 8}
		if m.warp == 32 { // RDNA: 128-byte L0 lines at 128 B/cycle, one-cycle wave32 issue
			m.l1Bytes, m.l1Line, m.fmaLatency = 128, 128, 5
		}
		return m, nil
	}
	// NVIDIA since Maxwell: four schedulers issue one warp instruction each per cycle; 32 shared
	// memory banks of 4 bytes; L1 delivers one 128-byte line per cycle; read-only (LDG.NC)
	// loads go through the texture pipeline at half that rate (Jia et al., "Dissecting the
	// NVIDIA Volta GPU architecture via microbenchmarking", 2018, and the Turing/Ampere follow-ups).
	m.archConstants = archConstants{issuePerSM: 4, onChipBytes: 128, l1Bytes: 128, l1Line: 128, fmaLatency: 4, onChipLatency: 30,
		l1Latency: 35, dramLatency: 600, readOnlyPenalty: 2, launchSeconds: 4e-6, barrierCycles: 40, regGranularity: 8}
	return m, nil
}

// occupancy is how many blocks of a kernel an SM holds and why no more.
type occupancy struct {
	blocksPerSM int
	limit       string  // the resource that bounds blocksPerSM
	warps       int     // active warps per SM
	fraction    float64 // active warps over the SM's maximum
}

// occupancyOf applies the CUDA occupancy rules (allocation of registers per warp, shared memory
// with the 1 KiB per-block reservation of compute capability 8.0 and later, thread and block
// limits) to a block of threads, regs registers per thread and shared bytes.
func (m machine) occupancyOf(threads, regs, shared int) occupancy {
	g := m.gpu
	warps := intmath.CeilDiv(threads, m.warp)
	o := occupancy{blocksPerSM: g.MaxBlocksPerSM, limit: "blocks per SM"}
	limit := func(n int, why string) {
		if n < o.blocksPerSM {
			o.blocksPerSM, o.limit = n, why
		}
	}
	limit(g.MaxThreadsPerSM/(warps*m.warp), "threads per SM")
	if regs > 0 {
		perWarp := intmath.CeilDiv(regs, m.regGranularity) * m.regGranularity * m.warp
		limit(g.RegsPerSM/(perWarp*warps), "registers")
	}
	if shared > 0 {
		reserve := 0
		if major, _, _ := strings.Cut(g.ComputeCapability, "."); !m.amd && atoi(major) >= 8 {
			reserve = 1024
		}
		limit(g.SharedPerSMKB*1024/(shared+reserve), "shared memory")
	}
	o.warps = o.blocksPerSM * warps
	o.fraction = float64(o.warps) / float64(g.MaxThreadsPerSM/m.warp)
	return o
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return n
}

// waves is the number of rounds of blocks the GPU runs and the efficiency lost to the last,
// partial round (Habitat's wave scaling, Yu et al. 2021).
func (m machine) waves(blocks int, o occupancy) (waves, efficiency float64) {
	slots := m.sms * float64(o.blocksPerSM)
	waves = float64(blocks) / slots
	return waves, waves / math.Ceil(waves)
}
