package roofline

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"smart"
	"smart/internal/intmath"
)

// Estimate is the modelled time of one stencil variant on one GPU with what stands behind it.
// Times and counts are per time step (a launch fusing TT steps is spread over them).
type Estimate struct {
	GPU    string  `json:"gpu"`
	TimeMs float64 `json:"time_ms"` // per time step
	Bound  string  `json:"bound"`   // "memory", "L2", "on-chip", "compute", "latency", "launch", CopyFloor or FMAFloor

	DRAMMs   float64 `json:"dram_ms"`    // DRAM traffic at the achievable bandwidth
	OnChipMs float64 `json:"on_chip_ms"` // shared memory or L1 loads and stores
	// L2Ms is the bytes between L2 and the SMs (L2Bytes) at the calibration's L2Cycles; 0 where
	// it counts none (the literature's constants).
	L2Ms      float64 `json:"l2_ms"`
	ComputeMs float64 `json:"compute_ms"` // FMA pipe or instruction issue, whichever is slower
	BarrierMs float64 `json:"barrier_ms"` // __syncthreads not hidden by other resident blocks
	LaunchMs  float64 `json:"launch_ms"`  // launch overhead (one launch per TT steps)
	// OCScale is the calibration's factor for the OC (1 where it has none), which multiplies the
	// time the parts above give into TimeMs: what the OC's code costs that no part counts.
	OCScale float64 `json:"oc_scale"`
	// FloorMs is the least time a step can take: the input read and the output written once per
	// launch at the GPU's copy bandwidth, or each point's FMAs at the GPU's peak rate, whichever
	// is longer (FloorBy: CopyFloor or FMAFloor). TimeMs is never below it.
	FloorMs float64 `json:"floor_ms"`
	FloorBy string  `json:"floor_by"`

	DRAMBytes     float64 `json:"dram_bytes"`
	L2Bytes       float64 `json:"l2_bytes"`        // every block's input region, halos included, and the output
	FLOPs         float64 `json:"flops"`           // 2 per point access, redundant (halo) computation included
	Intensity     float64 `json:"intensity"`       // FLOPs per DRAM byte
	LoadsPerPoint float64 `json:"loads_per_point"` // shared/L1 loads per computed point
	Redundancy    float64 `json:"redundancy"`      // computed points over grid points (temporal blocking's halos)
	L2HaloHit     float64 `json:"l2_halo_hit"`     // fraction of halo re-reads L2 serves

	Usage smart.Usage `json:"usage"`
	// OccRegs are the registers per thread the occupancy counts: the estimate's
	// (Usage.RegsPerThread) times the calibration's RegScale, up to what a thread may have.
	OccRegs     int     `json:"occupancy_regs"`
	Occupancy   float64 `json:"occupancy"` // active warps over the SM's maximum
	BlocksPerSM int     `json:"blocks_per_sm"`
	OccLimit    string  `json:"occupancy_limit"` // what bounds the blocks per SM
	Blocks      int     `json:"blocks"`
	Waves       float64 `json:"waves"`
	WaveEff     float64 `json:"wave_efficiency"`    // lost to the last, partial wave
	LatencyEff  float64 `json:"latency_efficiency"` // of the bounding resource, from occupancy
	Coalescing  float64 `json:"coalescing"`         // L1/shared passes per warp load over the ideal
}

// Model estimates the time per step of stencil st under tuning t on g from first principles
// (README.md gives the formulas), with the architecture's literature constants. A setting that
// cannot run on g gets the error of t.Usage(st).Fits(g), the same the search space gives; a GPU
// that is not NVIDIA gets ErrVendor.
func Model(st *smart.Stencil, t smart.Tuning, g smart.GPU) (Estimate, error) {
	return ModelWith(st, t, g, nil)
}

// ModelWith is Model with the free constants of cal (nil: the literature's, as Model).
func ModelWith(st *smart.Stencil, t smart.Tuning, g smart.GPU, cal *Calibration) (Estimate, error) {
	return modelWith(st, t, g, cal, factsOf(st, loadsPerPoint))
}

func modelWith(st *smart.Stencil, t smart.Tuning, g smart.GPU, cal *Calibration, f stencilFacts) (Estimate, error) {
	est, tm, err := analyse(st, t, g, f)
	if err != nil {
		return Estimate{}, err
	}
	c := literature(tm.m)
	if cal != nil {
		c = *cal
	}
	c.apply(&est, tm)
	return est, nil
}

// stencilFacts are what the model reads of a stencil's points, the same for all its settings:
// its order, the distinct x offsets of its accesses, and its loads per point under a tuning
// (loadsPerPoint, or a Modeler's memo of it). A high-order stencil has thousands of points.
type stencilFacts struct {
	order int
	xs    []int
	loads func(*smart.Stencil, smart.Tuning) float64
}

func factsOf(st *smart.Stencil, loads func(*smart.Stencil, smart.Tuning) float64) stencilFacts {
	f := stencilFacts{loads: loads}
	if st == nil {
		return f // analyse refuses it
	}
	f.order = st.Order()
	for _, p := range st.Points {
		if !slices.Contains(f.xs, p.Off[0]) {
			f.xs = append(f.xs, p.Off[0])
		}
	}
	return f
}

// A Modeler estimates settings of one stencil on one GPU as ModelWith does, reading the
// stencil's points once (stencilFacts) and keeping the loads per point the settings share:
// they depend on the merge factors, the streaming axis and retiming alone, and counting them
// over a high-order stencil's offsets costs more than the rest of the model, which a search
// runs thousands of times. Safe for concurrent use.
type Modeler struct {
	st    *smart.Stencil
	g     smart.GPU
	cal   *Calibration
	facts stencilFacts

	mu    sync.Mutex
	loads map[loadsKey]float64
}

// loadsKey is what loadsPerPoint reads of a tuning.
type loadsKey struct {
	merge  [3]int
	axis   int
	retime bool
}

// NewModeler returns a Modeler of st on g with the constants of cal (nil: the literature's).
func NewModeler(st *smart.Stencil, g smart.GPU, cal *Calibration) *Modeler {
	m := &Modeler{st: st, g: g, cal: cal, loads: map[loadsKey]float64{}}
	m.facts = factsOf(st, m.loadsPerPoint)
	return m
}

// Model is ModelWith(st, t, g, cal) of the Modeler's stencil, GPU and constants.
func (m *Modeler) Model(t smart.Tuning) (Estimate, error) {
	return modelWith(m.st, t, m.g, m.cal, m.facts)
}

func (m *Modeler) loadsPerPoint(st *smart.Stencil, t smart.Tuning) float64 {
	k := loadsKey{merge: [3]int{1, 1, 1}, axis: t.StreamAxis, retime: t.OC.Has(smart.RT)}
	if t.OC.Has(smart.BM) {
		k.merge = t.Merge
	}
	m.mu.Lock()
	v, ok := m.loads[k]
	m.mu.Unlock()
	if !ok {
		v = loadsPerPoint(st, t)
		m.mu.Lock()
		m.loads[k] = v
		m.mu.Unlock()
	}
	return v
}

// analyse counts what a variant moves, loads and computes, and what hides its latencies: all of
// the model but the free constants, which Calibration.apply adds. f holds what it reads of the
// stencil's points (factsOf st).
func analyse(st *smart.Stencil, t smart.Tuning, g smart.GPU, f stencilFacts) (Estimate, terms, error) {
	var tm terms
	if st == nil {
		return Estimate{}, tm, errors.New("no stencil to model")
	}
	if err := CheckGPU(g); err != nil {
		return Estimate{}, tm, err
	}
	if err := checkTuning(st, t); err != nil {
		return Estimate{}, tm, err
	}
	u := t.UsageOf(f.order, st.Dtype)
	if err := u.Fits(g); err != nil {
		return Estimate{}, tm, err
	}
	m, err := newMachine(g)
	if err != nil {
		return Estimate{}, tm, err
	}
	occ := m.occupancyOf(u.Threads, u.RegsPerThread, u.SharedBytes)
	if occ.blocksPerSM == 0 {
		return Estimate{}, tm, fmt.Errorf("a block of %d threads with %d registers each and %d bytes of shared memory does not fit on one of the %s's SMs", u.Threads, u.RegsPerThread, u.SharedBytes, g.Name)
	}

	r, d := f.order, st.Dims
	elem := float64(st.Dtype.Size())
	tile := t.Tile()
	tt := t.TT
	halo := r * tt
	blocks := 1
	var nb [3]int
	for a := range 3 {
		nb[a] = 1
		if a < d {
			nb[a] = intmath.CeilDiv(st.Grid[a], tile[a])
		}
		blocks *= nb[a]
	}
	// Points computed per launch: each fused level k of TT recomputes the halo the later levels
	// need, r(TT-k) wide on every side (Holewinski et al.'s overlapped tiling).
	computed := 0.0
	for k := 1; k <= tt; k++ {
		ext := 1.0
		for a := range d {
			ext *= float64(tile[a] + 2*r*(tt-k))
		}
		computed += ext
	}
	computed *= float64(blocks)
	points := float64(st.GridPoints())
	region := 1.0
	tileVol := 1.0
	for a := range d {
		region *= float64(tile[a] + 2*halo)
		tileVol *= float64(tile[a])
	}

	// DRAM per launch: the input once, the output once, and the halo re-reads L2 misses.
	// Blocks launch x-fastest: a halo shared with the next block along x is read while it is
	// still in L2; along y the neighbour comes a row of blocks later and along z a plane of
	// blocks later, so those hit only if that many blocks' regions fit in the half of L2 we
	// count on (the rest holds the output and other lines).
	extra := float64(blocks) * (region - tileVol)
	faces, hitFaces := 0.0, 0.0
	distance := 1.0
	for a := range d {
		face := 2 * float64(halo) / float64(tile[a])
		hit := math.Min(1, 0.5*m.l2/(distance*region*elem))
		if a == 0 {
			hit = 1
		}
		faces += face
		hitFaces += face * hit
		distance *= float64(nb[a])
	}
	est := Estimate{GPU: g.Name, Usage: u, OccRegs: u.RegsPerThread, Occupancy: occ.fraction, BlocksPerSM: occ.blocksPerSM, OccLimit: occ.limit, Blocks: blocks}
	if faces > 0 {
		est.L2HaloHit = hitFaces / faces
	}
	dram := elem * (2*points + extra*(1-est.L2HaloHit))

	// Loads from shared memory (or L1 without it) per computed point, and the stores that stage
	// the input region and the intermediate levels of temporal blocking.
	perPoint := f.loads(st, t)
	loads := computed * perPoint
	stores := 0.0
	if t.Shared {
		stores = float64(blocks)*region + computed*float64(tt-1)/float64(tt)
	}
	pass := m.warpPasses(st, t, tile, halo, f.xs)
	ideal := math.Max(1, 32*elem/m.onChipBytes)
	est.Coalescing = pass / ideal
	onChipCycles := (loads + stores) / 32 * pass / m.sms

	// Compute: one FMA per point access on the FP64 or FP32 pipe, and every instruction
	// (FMAs, loads, stores and about four for indexing and the store of each point) through
	// the schedulers.
	lanes := m.fp64Lanes
	if st.Dtype == smart.Float32 {
		lanes = m.fp32Lanes
	}
	nnz := float64(st.NNZ())
	fmaCycles := computed * nnz / lanes / m.sms
	issueCycles := computed * (nnz + perPoint + 4) / 32 / m.issuePerSM / m.sms
	if t.Shared {
		issueCycles += stores / 32 / m.issuePerSM / m.sms
	}

	// Latency hiding from occupancy (Little's law): FMAs need fmaLatency cycles of independent
	// work in flight, each warp offering one chain per point it computes at once; loads need
	// their latency covered by the loads outstanding, as many as free registers allow (up to
	// eight a thread); DRAM needs bandwidth x latency bytes in flight.
	ilp := float64(t.Merge[0] * t.Merge[1] * t.Merge[2])
	if t.StreamAxis >= 0 {
		ilp *= float64(t.Unroll[t.StreamAxis])
	}
	inFlight := math.Max(1, math.Min(8, float64(g.MaxRegsPerThread-u.RegsPerThread)/8))
	if t.OC.Has(smart.PR) {
		inFlight = math.Min(16, 2*inFlight) // the next plane is loaded while this one is computed
	}
	// The occupancy's warps come from apply, with the calibration's registers.
	tm.m, tm.steps, tm.shared, tm.streaming, tm.oc = m, float64(tt), t.Shared, t.StreamAxis >= 0, t.OC
	tm.threads, tm.regs, tm.regsMax, tm.sharedBytes, tm.blocks = u.Threads, u.RegsPerThread, u.RegsAvailable(g), u.SharedBytes, blocks
	tm.dram, tm.elem, tm.inFlight, tm.pass, tm.moved = dram, elem, inFlight, pass, 2*points*elem
	tm.fmas, tm.fp32 = points*float64(st.NNZ()), st.Dtype == smart.Float32
	tm.onChipCycles = onChipCycles
	tm.fmaCycles, tm.issueCycles, tm.ilp, tm.lanes = fmaCycles, issueCycles, ilp, lanes
	// The same without the loads block merging shares between a thread's points (NoReuse).
	tm.onChipNoReuse, tm.issueNoReuse = onChipCycles, issueCycles
	if t.OC.Has(smart.BM) {
		single := t
		single.Merge = [3]int{1, 1, 1}
		extraLoads := computed * (f.loads(st, single) - perPoint)
		tm.onChipNoReuse += extraLoads / 32 * pass / m.sms
		tm.issueNoReuse += extraLoads / 32 / m.issuePerSM / m.sms
	}

	// Barriers: streaming waits twice per plane (the plane is loaded, then consumed), staged
	// tiles once per level, twice with the ping-pong buffers of temporal blocking. (The generated
	// loop waits once per plane it loads, SB + 2h + tt; counted so, the runtime models that read
	// the analytic time picked worse: docs/results/calibration.md.) Other resident blocks fill
	// the wait; prefetching overlaps half of it.
	if t.Shared {
		perBlock := float64(tt)
		switch {
		case t.StreamAxis >= 0:
			perBlock = 2 * float64(t.SB*tt)
		case tt > 1:
			perBlock = 2 * float64(tt)
		}
		tm.barriers, tm.prefetch = float64(blocks)/m.sms*perBlock, t.OC.Has(smart.PR)
	}
	// Registers the fused partial sums ask for beyond what a thread gets: spilled to local memory.
	tm.spilled = math.Max(0, float64(u.RegsPerThread+u.FusedRegs-u.RegsAvailable(g)))
	tm.localPerPoint = float64(u.LocalRegs) / ilp
	tm.computed = computed
	// A block reads rows of its input region tile[0] + 2h elements long (one, streaming along x):
	// rows shorter than a few 32-byte sectors waste most of what each sector brings (one more
	// sector a row, on average).
	run := float64(tile[0]+2*halo) * elem
	if t.StreamAxis == 0 {
		run = elem // a plane across x: every row of the block is one element wide
		tm.streamRun = float64(t.SB + 2*halo)
	}
	tm.l2Bytes = elem * (float64(blocks)*region + points)
	tm.sectorEff = run / (run + 32)

	steps := float64(tt)
	est.DRAMBytes = dram / steps
	est.L2Bytes = tm.l2Bytes / steps
	est.FLOPs = 2 * nnz * computed / steps
	est.Intensity = est.FLOPs / est.DRAMBytes
	est.LoadsPerPoint = perPoint
	est.Redundancy = computed / steps / points
	return est, tm, nil
}

// maxThreadPoints bounds the points one thread computes (the merging factors' product). Each
// needs a register of its own and CUDA allows at most 255 per thread, so more is no kernel; the
// bound keeps loadsPerPoint, which lists them, small whatever a catalogue entry says.
const maxThreadPoints = 256

// CheckGPU reports why the stencil model cannot describe g, or nil: ErrVendor for a GPU that
// is not NVIDIA's.
func CheckGPU(g smart.GPU) error {
	if g.Vendor != "NVIDIA" {
		return fmt.Errorf("%s (%s): %w", g.Name, g.Vendor, ErrVendor)
	}
	return nil
}

// checkTuning rejects tunings no kernel can have, before any arithmetic on them.
func checkTuning(st *smart.Stencil, t smart.Tuning) error {
	if t.Dims != st.Dims {
		return fmt.Errorf("tuning is for %d-D stencils, the stencil is %d-D", t.Dims, st.Dims)
	}
	if err := t.Check(); err != nil {
		return err
	}
	// Check bounds each factor, so this product cannot overflow.
	if n := t.Merge[0] * t.Merge[1] * t.Merge[2]; n > maxThreadPoints {
		return fmt.Errorf("merging gives each thread %d points; no GPU has the registers for more than %d", n, maxThreadPoints)
	}
	return nil
}

// loadsPerPoint is how many shared-memory (or L1) loads a computed point costs. Block merging
// lets adjacent points share the values they both read; streaming keeps the thread's own
// column along the streaming axis in registers (one new value per plane); retiming turns every
// input value into partial sums, so each distinct in-plane position is read once.
func loadsPerPoint(st *smart.Stencil, t smart.Tuning) float64 {
	shifts := [3]int{1, 1, 1} // the thread's points lie at 0..shifts[a]-1 along axis a
	if t.OC.Has(smart.BM) {
		shifts = t.Merge
	}
	// The offsets read from all of the thread's points, marked on a dense box that holds them
	// and the thread's own points: a search models thousands of settings, and a set of offsets
	// cost more than the rest of the model.
	var lo, ext [3]int
	for a := range 3 {
		l, h := 0, 0
		for _, p := range st.Points {
			l, h = min(l, p.Off[a]), max(h, p.Off[a])
		}
		lo[a], ext[a] = l, h-l+shifts[a]
	}
	var buf [4096]bool
	union := buf[:0]
	if n := ext[0] * ext[1] * ext[2]; n <= len(buf) {
		union = buf[:n]
	} else {
		union = make([]bool, n) // checkTuning bounds the shifts' product, so n stays small
	}
	at := func(c [3]int) int { return c[0] - lo[0] + ext[0]*(c[1]-lo[1]+ext[1]*(c[2]-lo[2])) }
	for _, p := range st.Points {
		for z := range shifts[2] {
			for y := range shifts[1] {
				row := at([3]int{p.Off[0], p.Off[1] + y, p.Off[2] + z})
				for x := range shifts[0] {
					union[row+x] = true
				}
			}
		}
	}
	sa := t.StreamAxis
	n := 0
	var c [3]int
	switch {
	case sa < 0:
		for _, in := range union {
			if in {
				n++
			}
		}
	case t.OC.Has(smart.RT):
		// every column along the streaming axis that holds a value, once
		u, v := (sa+1)%3, (sa+2)%3
		for c[u] = lo[u]; c[u] < lo[u]+ext[u]; c[u]++ {
			for c[v] = lo[v]; c[v] < lo[v]+ext[v]; c[v]++ {
				for c[sa] = lo[sa]; c[sa] < lo[sa]+ext[sa]; c[sa]++ {
					if union[at(c)] {
						n++
						break
					}
				}
			}
		}
	default:
		// one new value a plane in each of the thread's own columns, every other value loaded
		n = 1
		for a := range 3 {
			if a != sa {
				n *= shifts[a]
			}
		}
		for c[2] = lo[2]; c[2] < lo[2]+ext[2]; c[2]++ {
			for c[1] = lo[1]; c[1] < lo[1]+ext[1]; c[1]++ {
				for c[0] = lo[0]; c[0] < lo[0]+ext[0]; c[0]++ {
					if union[at(c)] && !ownColumn(c, sa, shifts) {
						n++
					}
				}
			}
		}
	}
	return float64(n) / float64(shifts[0]*shifts[1]*shifts[2])
}

// ownColumn reports whether c lies in the column along axis sa of one of a thread's points.
func ownColumn(c [3]int, sa int, shifts [3]int) bool {
	for a := range 3 {
		if a != sa && (c[a] < 0 || c[a] >= shifts[a]) {
			return false
		}
	}
	return true
}

// warpPasses is the cycles of the shared-memory (or L1) pipe one warp load of the stencil
// takes: lanes map to threads x-fastest (a block narrower than a warp spans several rows), a
// thread's points along x are Merge[0] apart with block merging and a block apart with cyclic
// merging, and the load is averaged over the stencil's x offsets.
func (m machine) warpPasses(st *smart.Stencil, t smart.Tuning, tile [3]int, halo int, xs []int) float64 {
	stride := 1
	if t.OC.Has(smart.BM) {
		stride = t.Merge[0]
	}
	elem := st.Dtype.Size()
	total := 0.0
	if t.Shared {
		// An x offset moves every lane's address alike, which only renumbers the banks: the
		// most loaded bank's count, and so the passes, are the same for every offset.
		passes := m.bankPasses(t.Block[0], tile[0]+2*halo, stride, elem, xs[0]+halo)
		for range xs {
			total += passes
		}
		return total / float64(len(xs))
	}
	for _, x := range xs {
		total += m.linePasses(t.Block[0], st.Grid[0], stride, elem, x)
	}
	return total / float64(len(xs))
}

// bankPasses counts the passes 32 banks of 4 bytes need to serve one warp: element addresses
// (l/blockX)*pitch + (l%blockX)*stride + shift, elem bytes each.
func (m machine) bankPasses(blockX, pitch, stride, elem, shift int) float64 {
	words := elem / 4
	var buf [256]int
	addrs := buf[:0]
	for l := range m.warp {
		e := (l/blockX)*pitch + (l%blockX)*stride + shift
		for w := range words {
			addrs = append(addrs, e*words+w)
		}
	}
	slices.Sort(addrs)
	addrs = slices.Compact(addrs)
	var perBank [32]int
	worst := 0
	for _, a := range addrs {
		b := ((a % 32) + 32) % 32
		perBank[b]++
		worst = max(worst, perBank[b])
	}
	return float64(worst) * 32 * 4 / m.onChipBytes
}

// linePasses counts the L1 lines one warp load touches (rows start anywhere in a line, so the
// count is averaged over row starts), in cycles of the L1's bandwidth.
func (m machine) linePasses(blockX, pitch, stride, elem, shift int) float64 {
	// Each lane's first byte, and its line found by a shift where the line is a power of two
	// (always, in newMachine): integer division was most of the analytic model's time.
	var firstBuf [64]int
	first := firstBuf[:0]
	row, col := 0, 0 // lane l's l/blockX and l%blockX
	for range m.warp {
		first = append(first, (row*pitch+col*stride+shift)*elem)
		if col++; col == blockX {
			row, col = row+1, 0
		}
	}
	lineShift := bits.TrailingZeros(uint(m.l1Line))
	pow2 := m.l1Line > 0 && m.l1Line == 1<<lineShift
	lineOf := func(b int) int {
		if pow2 {
			return b >> lineShift // floor division, negative b included
		}
		return floorDiv(b, m.l1Line)
	}
	total, n := 0, 0
	var linesBuf [128]int
	for start := 0; start < m.l1Line; start += 32 {
		lines := linesBuf[:0]
		for _, b := range first {
			for _, k := range [2]int{lineOf(start + b), lineOf(start + b + elem - 1)} {
				// a lane's line is mostly the last one found: the lanes of a row go up in address
				if last := len(lines) - 1; (last < 0 || lines[last] != k) && !slices.Contains(lines, k) {
					lines = append(lines, k)
				}
			}
		}
		total += len(lines)
		n++
	}
	return float64(total) / float64(n) * float64(m.l1Line) / m.l1Bytes
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
