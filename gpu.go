package smart

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNotCUDA is wrapped by RunsCUDA's error: smart generates CUDA, which only NVIDIA GPUs run.
var ErrNotCUDA = errors.New("smart's kernels are CUDA; only NVIDIA GPUs run them")

// RunsCUDA says why g cannot run smart's kernels, or nil when it can.
func (g GPU) RunsCUDA() error {
	if g.Vendor != "NVIDIA" {
		return fmt.Errorf("GPU %s is made by %s: %w", g.Name, g.Vendor, ErrNotCUDA)
	}
	return nil
}

// Device returns g as the device one kernel runs on: a board of several dies that a program
// sees as separate GPUs (the MI250X's two) gives each its share of the SMs, memory, bandwidth,
// L2 and FLOPS, which the catalogue gives for the whole board. Other GPUs are returned as they
// are.
func (g GPU) Device() GPU {
	if g.Dies <= 1 {
		return g
	}
	d := float64(g.Dies)
	g.SMs /= g.Dies
	g.MemoryGB /= d
	g.BandwidthGBs /= d
	g.L2MB /= d
	g.FP64TFLOPS /= d
	g.FP32TFLOPS /= d
	g.Dies = 1
	return g
}

// contextReserveGiB is the memory a CUDA context and the driver keep for themselves, which the
// grids cannot have.
const contextReserveGiB = 1

// CheckMemory says why the two grids of s (every kernel ping-pongs two buffers of the whole
// grid) do not fit g's memory, or returns nil when they fit. The catalogue's memory_gb is the
// vendor's figure, which is binary for GPU boards (the H100-SXM's "80 GB" is 80 GiB, of which
// CUDA reports 81,559 MiB), less contextReserveGiB for the context. ECC on GDDR memory, on by
// default on data-centre GDDR cards such as the T4 or L4, takes a further sixteenth that the
// check does not know of; a run that finds too little memory fails there.
func (g GPU) CheckMemory(s *Stencil) error {
	need := 2 * float64(s.GridPoints()) * float64(s.Dtype.Size()) / (1 << 30)
	if avail := g.MemoryGB - contextReserveGiB; need > avail {
		return fmt.Errorf("its two grids need %.1f GiB; the %s has %g GiB, %g GiB of it left after the CUDA context",
			need, g.Name, g.MemoryGB, avail)
	}
	return nil
}

// GPU describes a graphics processor: the facts the analytic model and the learned models read,
// and what renting one costs. The catalogue (data/gpus.json) holds one per product.
type GPU struct {
	Name              string   `json:"name"`    // canonical catalogue name, e.g. "A100-40GB"
	Aliases           []string `json:"aliases"` // other names that resolve to it, the NVML name included
	Vendor            string   `json:"vendor"`  // "NVIDIA" or "AMD"
	Arch              string   `json:"arch"`    // e.g. "Ampere"
	ComputeCapability string   `json:"compute_capability,omitempty"`

	SMs              int               `json:"sms"`            // streaming multiprocessors (compute units on AMD)
	Dies             int               `json:"dies,omitempty"` // dies a program sees as separate devices (MI250X: 2; Device gives one); 0 means 1
	MemoryGB         float64           `json:"memory_gb"`
	BandwidthGBs     float64           `json:"bandwidth_gbs"` // peak DRAM bandwidth, GB/s
	L2MB             float64           `json:"l2_mb"`
	SharedPerSMKB    int               `json:"shared_per_sm_kb"`
	SharedPerBlockKB int               `json:"shared_per_block_kb"` // opt-in maximum per block
	RegsPerSM        int               `json:"regs_per_sm"`         // 32-bit registers
	RegsPerBlock     int               `json:"regs_per_block"`
	MaxRegsPerThread int               `json:"max_regs_per_thread"`
	MaxThreadsPerSM  int               `json:"max_threads_per_sm"`
	MaxThreadsPerBlk int               `json:"max_threads_per_block"`
	MaxBlocksPerSM   int               `json:"max_blocks_per_sm"`
	FP64TFLOPS       float64           `json:"fp64_tflops"`
	FP32TFLOPS       float64           `json:"fp32_tflops"`
	BoostClockMHz    int               `json:"boost_clock_mhz"`
	ConstantMemoryKB int               `json:"constant_memory_kb"`
	WarpSize         int               `json:"warp_size"`
	Price            *Price            `json:"price"`   // nil where the GPU is not rented
	Sources          map[string]string `json:"sources"` // field name (or "*") -> where the number comes from
}

// Price is an on-demand rental price per GPU and hour, with where and when it was read.
type Price struct {
	USDPerHour float64 `json:"usd_per_hour"`
	Provider   string  `json:"provider"`
	Region     string  `json:"region"`
	Instance   string  `json:"instance"`
	Read       string  `json:"read"` // date the price was read, YYYY-MM-DD
}

// PriceSources says where the prices of prices were read, each provider, region and date once
// in the order met, as "AWS us-east-1, read 2026-11-09"; nil prices are skipped.
func PriceSources(prices ...*Price) []string {
	var out []string
	for _, p := range prices {
		if p == nil {
			continue
		}
		s := strings.TrimSpace(p.Provider + " " + p.Region)
		if p.Read != "" {
			s += ", read " + p.Read
		}
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// SM80 returns the resource limits of a compute-capability-8.0 GPU (A100): the default for
// checking a setting's registers, shared memory and threads when no GPU is named.
func SM80() GPU {
	return GPU{
		Name: "sm_80", Vendor: "NVIDIA", Arch: "Ampere", ComputeCapability: "8.0",
		SMs: 108, MemoryGB: 40, BandwidthGBs: 1555, L2MB: 40,
		SharedPerSMKB: 164, SharedPerBlockKB: 163, RegsPerSM: 65536, RegsPerBlock: 65536,
		MaxRegsPerThread: 255, MaxThreadsPerSM: 2048, MaxThreadsPerBlk: 1024, MaxBlocksPerSM: 32,
		FP64TFLOPS: 9.7, FP32TFLOPS: 19.5, BoostClockMHz: 1410, ConstantMemoryKB: 64, WarpSize: 32,
		Sources: map[string]string{"*": "NVIDIA CUDA C++ Programming Guide, Table 'Technical Specifications per Compute Capability' (8.0); NVIDIA A100 datasheet"},
	}
}
