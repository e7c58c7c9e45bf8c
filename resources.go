package smart

import "fmt"

// Usage is what one block of a generated kernel asks of an SM.
type Usage struct {
	Threads       int // threads per block
	RegsPerThread int // estimated 32-bit registers per thread
	SharedBytes   int // shared memory per block
}

// Usage estimates the resources of the kernel generated for stencil st under tuning t. Shared
// memory is exact (SharedElems); registers are an estimate: a base for indices and pointers plus
// the values each thread keeps live (accumulators of its merged and unrolled points, the column
// window of streaming or the partial sums of retiming, the prefetched plane).
func (t Tuning) Usage(st *Stencil) Usage {
	r := st.Order()
	perValue := 2 // a float64 takes two 32-bit registers
	if st.Dtype == Float32 {
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
	return Usage{
		Threads:       t.Threads(),
		RegsPerThread: addSat(24, mulSat(perValue, values)),
		SharedBytes:   mulSat(t.SharedElems(r), st.Dtype.Size()),
	}
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
	}
	return nil
}
