package smart

import (
	"encoding/json"
	"fmt"
	"math"

	"smart/internal/bit"
)

// Usage is what one block of a generated kernel asks of an SM. Its JSON keys are snake_case, as
// all of smart's JSON; UnmarshalJSON also reads the Go-cased keys it had before (RegsPerThread),
// which predictions stored from smart predict --json hold.
type Usage struct {
	Threads       int `json:"threads"`         // threads per block
	RegsPerThread int `json:"regs_per_thread"` // estimated 32-bit registers per thread
	SharedBytes   int `json:"shared_bytes"`    // shared memory per block
	// FusedRegs estimates the registers per thread, beyond RegsPerThread, of the partial sums
	// that retiming with temporal blocking keeps for each intermediate level: nvcc holds a block
	// to its launch bounds and spills what does not fit, so a little costs nothing and much is
	// ruinous (Fits).
	FusedRegs int `json:"fused_regs"`
	// LocalRegs estimates the 32-bit values per thread that a streaming kernel keeps in local
	// memory, not registers: where the loop over a thread's merged points is not unrolled in
	// full, the arrays indexed by the point (the column window or, with retiming, the partial
	// sums, and the prefetched values) are indexed at run time, which registers cannot be. A
	// kernel that stages the window in shared memory and does not retime keeps no such array.
	LocalRegs int `json:"local_regs"`
}

// UnmarshalJSON reads a usage with snake_case keys or with the Go-cased keys of the files written
// before it had tags; where a file holds both, the snake_case key's value is kept.
func (u *Usage) UnmarshalJSON(b []byte) error {
	// Without tags the Go-cased keys match the field names; the snake_case ones do not (their
	// underscores defeat the decoder's case-insensitive match), so the second pass overwrites
	// only what a snake_case key gives.
	var goCased struct{ Threads, RegsPerThread, SharedBytes, FusedRegs, LocalRegs int }
	if err := json.Unmarshal(b, &goCased); err != nil {
		return fmt.Errorf("resource usage: %w", err)
	}
	*u = Usage(goCased)
	type snake Usage // Usage's tags without this method
	if err := json.Unmarshal(b, (*snake)(u)); err != nil {
		return fmt.Errorf("resource usage: %w", err)
	}
	return nil
}

// Usage estimates the resources of the kernel generated for stencil st under tuning t. Shared
// memory is exact (SharedElems); registers are an estimate: a base for indices and pointers plus
// the values each thread keeps live (accumulators of its merged and unrolled points, the column
// window of streaming or the partial sums of retiming, the prefetched plane).
func (t Tuning) Usage(st *Stencil) Usage { return t.UsageOf(st.Order(), st.Dtype) }

// UsageOf is Usage of a stencil of order r and element type dtype, all that Usage reads of it,
// for a caller that models many settings of one stencil: Order walks every point.
func (t Tuning) UsageOf(r int, dtype Dtype) Usage {
	perValue := 2 // a float64 takes two 32-bit registers
	if dtype == Float32 {
		perValue = 1
	}
	// Saturating arithmetic: an absurd tuning must come out too large for any GPU, not wrap.
	points := mulSat(mulSat(t.Merge[0], t.Merge[1]), t.Merge[2])
	if t.StreamAxis >= 0 {
		points = mulSat(points, t.Unroll[t.StreamAxis])
	}
	values := points // one accumulator per output point in flight
	if t.StreamAxis >= 0 {
		values = addSat(values, mulSat(points, 2*r+1)) // column window, or partial sums with retiming
		if t.OC.Has(PR) {
			values = addSat(values, points) // the next plane's values, loaded ahead
		}
	}
	u := Usage{
		Threads:       t.Threads(),
		RegsPerThread: addSat(24, mulSat(perValue, values)),
		SharedBytes:   mulSat(t.SharedElems(r), dtype.Size()),
	}
	if t.StreamAxis >= 0 && t.OC.Has(RT) {
		u.FusedRegs = mulSat(perValue, t.fusedPartialSums(r))
	}
	if t.StreamAxis >= 0 && t.partialMergeUnroll() && (!t.Shared || t.OC.Has(RT)) {
		u.LocalRegs = mulSat(perValue, values)
	}
	return u
}

// partialMergeUnroll reports whether a loop over a thread's merged points (an axis other than
// the streaming one) is unrolled less than it runs.
func (t Tuning) partialMergeUnroll() bool {
	for a := range t.Dims {
		if a != t.StreamAxis && t.Merge[a] > 1 && t.Unroll[a] < t.Merge[a] {
			return true
		}
	}
	return false
}

// fusedPartialSums counts the values that retiming with temporal blocking keeps in registers on
// top of the output level's: the 2r+1 partial sums of every intermediate level 1..tt-1, for each
// of the points of that level's plane (the tile and its halo of r*(tt-k) per side) a thread
// computes.
func (t Tuning) fusedPartialSums(r int) int {
	if t.TT > MaxFactor {
		return math.MaxInt // Check rejects it; the loop over the levels would take too long
	}
	threads := max(t.Threads(), 1)
	n := 0
	for k := 1; k < t.TT; k++ {
		area := t.levelArea(r, k)
		perThread := area/threads + bit.Of(area%threads != 0)
		n = addSat(n, mulSat(perThread, 2*r+1))
	}
	return n
}

// maxSpill bounds the registers per thread that the fused partial sums may ask for beyond what a
// thread of the block can have (255, or the register file over the block's threads), which nvcc
// spills to local memory. Chosen on the H100's measured kernels (go run ./bench/measured): none
// estimated to spill more came near its stencil's fastest, and below it the estimate is too rough
// to tell (docs/performance.md).
const maxSpill = 24

// RegsAvailable is the most registers each thread of the block can have on g.
func (u Usage) RegsAvailable(g GPU) int {
	return min(g.MaxRegsPerThread, g.RegsPerBlock/max(u.Threads, 1))
}

// Fits reports why a block with this usage cannot run on g, or nil. A kernel whose registers
// exceed the per-thread maximum would spill; the space rejects it as csTuner does.
func (u Usage) Fits(g GPU) error {
	switch {
	case u.Threads > g.MaxThreadsPerBlk:
		return fmt.Errorf("%d threads per block exceed the %s's maximum of %d", u.Threads, g.Name, g.MaxThreadsPerBlk)
	case u.RegsPerThread > g.MaxRegsPerThread:
		return fmt.Errorf("an estimated %d registers per thread exceed the %s's maximum of %d (the kernel would spill)", u.RegsPerThread, g.Name, g.MaxRegsPerThread)
	case u.RegsPerThread*u.Threads > g.RegsPerBlock:
		return fmt.Errorf("%d threads x %d registers exceed the %s's %d registers per block", u.Threads, u.RegsPerThread, g.Name, g.RegsPerBlock)
	case u.SharedBytes > g.SharedPerBlockKB*1024:
		return fmt.Errorf("%d bytes of shared memory per block exceed the %s's %d KiB", u.SharedBytes, g.Name, g.SharedPerBlockKB)
	case u.FusedRegs > 0 && addSat(u.RegsPerThread, u.FusedRegs) > u.RegsAvailable(g)+maxSpill:
		return fmt.Errorf("with the fused steps' partial sums a thread needs an estimated %d registers, more than %d over the %d a block of %d threads can give it on the %s (the kernel would spill heavily)",
			addSat(u.RegsPerThread, u.FusedRegs), maxSpill, u.RegsAvailable(g), u.Threads, g.Name)
	}
	return nil
}
