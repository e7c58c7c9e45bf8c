package space

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"smart"
	"smart/internal/english"
)

// Limits of the stencil space that do not come from the GPU description.
const (
	// MaxBlockX, MaxBlockY and MaxBlockZ are CUDA's block dimension limits (every compute
	// capability since 2.0).
	MaxBlockX, MaxBlockY, MaxBlockZ = 1024, 1024, 64
	// MaxTT is the most time steps temporal blocking fuses into one launch: beyond 8 the halo
	// of 2*r*tt points per axis outgrows any tile that fits shared memory for r >= 1.
	MaxTT = 8
)

// maxLaunchGrid is CUDA's limit on the blocks of one launch along x, y and z (every compute
// capability since 3.0).
var maxLaunchGrid = [3]int{math.MaxInt32, 65535, 65535}

// LaunchGrid is the launch grid of tuning t on stencil st as the code generator (dataset/cuda)
// launches each of its kernels: one block per tile (t.Tile()) of the interior, the grid less r
// per side. Temporal blocking fuses steps, not tiles, so every launch of a run has this grid.
// The space's launch grid constraint computes the same.
func LaunchGrid(st *smart.Stencil, t smart.Tuning) [3]int {
	r, tile := st.Order(), t.Tile()
	grid := [3]int{1, 1, 1}
	for a := range st.Dims {
		grid[a] = blocks(st.Grid[a]-2*r, tile[a])
	}
	return grid
}

// LaunchGridFits reports whether a launch grid is within CUDA's limits, 2^31-1 x 65535 x 65535
// blocks.
func LaunchGridFits(grid [3]int) bool {
	for a, n := range grid {
		if n > maxLaunchGrid[a] {
			return false
		}
	}
	return true
}

// blocks is the number of tiles of tile points that cover n points.
func blocks(n, tile int) int { return (n + tile - 1) / tile }

var (
	blockNames  = [3]string{smart.ParamBlockX, smart.ParamBlockY, smart.ParamBlockZ}
	unrollNames = [3]string{smart.ParamUnrollX, smart.ParamUnrollY, smart.ParamUnrollZ}
	bmNames     = [3]string{smart.ParamBMX, smart.ParamBMY, smart.ParamBMZ}
	cmNames     = [3]string{smart.ParamCMX, smart.ParamCMY, smart.ParamCMZ}
)

// ForStencil builds the setting space of stencil st under combination oc on gpu (smart.SM80()
// when no GPU is named), after csTuner Table I, with the constraints of the package
// documentation. Its parameters are smart.ParamNames(st.Dims, oc).
func ForStencil(st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*Space, error) {
	return ForStencilContext(context.Background(), st, oc, gpu)
}

// ForStencilContext is ForStencil with a context that cancels the generation.
func ForStencilContext(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU) (*Space, error) {
	params, err := StencilParams(st, oc, gpu)
	if err != nil {
		return nil, err
	}
	s, err := New(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("setting space of %s under %s: %w", st.Name, oc, err)
	}
	return s, nil
}

// StencilParams returns the parameters and constraints of the stencil space without
// generating it, for callers that add their own constraints before calling New.
func StencilParams(st *smart.Stencil, oc smart.Combination, gpu smart.GPU) ([]Param, error) {
	if st == nil {
		return nil, errors.New("setting space: no stencil")
	}
	if st.Dims != 2 && st.Dims != 3 {
		return nil, fmt.Errorf("setting space of %s: dims is %d; a stencil has 2 or 3 dimensions", st.Name, st.Dims)
	}
	if err := oc.Check(); err != nil {
		return nil, fmt.Errorf("setting space of %s: %w", st.Name, err)
	}
	if gpu.MaxThreadsPerBlk <= 0 || gpu.MaxRegsPerThread <= 0 || gpu.RegsPerBlock <= 0 || gpu.SharedPerBlockKB <= 0 {
		return nil, fmt.Errorf("setting space of %s: GPU %q lacks its per-block limits (max_threads_per_block, max_regs_per_thread, regs_per_block, shared_per_block_kb)", st.Name, gpu.Name)
	}
	b := &stencilSpace{st: st, oc: oc, gpu: gpu, dims: st.Dims, r: st.Order()}
	for a := range b.dims {
		b.interior[a] = st.Grid[a] - 2*b.r
		if b.interior[a] < 1 {
			return nil, fmt.Errorf("setting space of %s: grid[%d] is %d, too small for order %d", st.Name, a, st.Grid[a], b.r)
		}
	}
	return b.params(), nil
}

// stencilSpace holds what the constraints of one stencil space read.
type stencilSpace struct {
	st       *smart.Stencil
	oc       smart.Combination
	gpu      smart.GPU
	dims, r  int
	interior [3]int // points computed along each axis: the extent less the halo 2r
	out      []Param
}

func (b *stencilSpace) add(name string, values []int, cs ...Constraint) {
	b.out = append(b.out, Param{Name: name, Values: values, Constraints: cs})
}

func (b *stencilSpace) params() []Param {
	st, oc, dims, r := b.st, b.oc, b.dims, b.r
	warp := b.gpu.WarpSize
	if warp <= 0 {
		warp = 32
	}
	blocks := blockNames[:dims]
	limits := [3]int{MaxBlockX, MaxBlockY, MaxBlockZ}
	for a := range dims {
		b.add(blocks[a], PowersOfTwo(1, min(limits[a], b.interior[a])))
	}
	maxThreads := b.gpu.MaxThreadsPerBlk
	b.out[dims-1].Constraints = append(b.out[dims-1].Constraints, Constraint{
		Name:  fmt.Sprintf("%d <= %s <= %d", warp, strings.Join(blocks, "*"), maxThreads),
		Reads: blocks,
		Fn: func(v []int) bool {
			n := product(v)
			return n >= warp && n <= maxThreads
		},
		Explain: func(v []int) string {
			return fmt.Sprintf("a block of %s must hold at least a warp (%d) and at most the %s's %d threads", english.Plural(product(v), "thread"), warp, b.gpu.Name, maxThreads)
		},
	})

	b.add(smart.ParamShared, Bool())
	var constCons []Constraint
	if kb := b.gpu.ConstantMemoryKB; kb > 0 {
		bytes := st.NNZ() * st.Dtype.Size()
		constCons = append(constCons, Constraint{
			Name:  fmt.Sprintf("const = 0 or the %d coefficients fit the %d KiB of constant memory", st.NNZ(), kb),
			Reads: []string{smart.ParamConst},
			Fn:    func(v []int) bool { return v[0] == 0 || bytes <= kb*1024 },
		})
	}
	b.add(smart.ParamConst, Bool(), constCons...)

	streaming := oc.Has(smart.ST)
	if streaming {
		b.add(smart.ParamStreamD, Range(1, dims, 1), Constraint{
			Name:  "the block size along the streaming axis sd is 1",
			Reads: append([]string{smart.ParamStreamD}, blocks...),
			Fn:    func(v []int) bool { return v[v[0]] == 1 },
		})
		most := 0
		for a := range dims {
			most = max(most, b.interior[a])
		}
		interior := b.interior
		b.add(smart.ParamStreamB, PowersOfTwo(1, most), Constraint{
			Name:  fmt.Sprintf("sb <= the interior extent along sd (grid - 2*%d)", r),
			Reads: []string{smart.ParamStreamD, smart.ParamStreamB},
			Fn:    func(v []int) bool { return v[1] <= interior[v[0]-1] },
			Explain: func(v []int) string {
				return fmt.Sprintf("axis %d has %d interior points", v[0], interior[v[0]-1])
			},
		})
	}

	// tt comes before the merging and unroll factors although it is listed last: the resource
	// constraint checked early at their levels then sees the real tt, which prunes more.
	if oc.Has(smart.TB) {
		steps := st.Steps
		b.add(smart.ParamTT, PowersOfTwo(2, MaxTT), Constraint{
			Name:  "temporal blocking needs shared = 1",
			Reads: []string{smart.ParamShared, smart.ParamTT},
			Fn:    func(v []int) bool { return v[0] == 1 },
		}, Constraint{
			Name:  fmt.Sprintf("tt <= %d, the stencil's time steps", steps),
			Reads: []string{smart.ParamTT},
			Fn:    func(v []int) bool { return v[0] <= steps },
		})
	}

	var merges []string
	switch {
	case oc.Has(smart.BM):
		merges = bmNames[:dims]
	case oc.Has(smart.CM):
		merges = cmNames[:dims]
	}
	for a, m := range merges {
		n := b.interior[a]
		cs := []Constraint{{
			Name:  fmt.Sprintf("%s*%s <= %d (the interior extent)", blocks[a], m, n),
			Reads: []string{blocks[a], m},
			Fn:    func(v []int) bool { return v[0]*v[1] <= n },
		}}
		if streaming {
			axis := a + 1
			cs = append(cs, Constraint{
				Name:  fmt.Sprintf("%s = 1 when streaming along it (sd = %d)", m, axis),
				Reads: []string{smart.ParamStreamD, m},
				Fn:    func(v []int) bool { return v[0] != axis || v[1] == 1 },
			})
		}
		b.add(m, PowersOfTwo(1, n), cs...)
	}

	if streaming || merges != nil {
		for a, u := range unrollNames[:dims] {
			b.add(u, PowersOfTwo(1, b.interior[a]), b.unrollConstraint(a, u, merges))
		}
	}

	if oc.Has(smart.TB) {
		b.out = attach(b.out, b.haloConstraint(merges))
	}
	for a := range dims {
		// Only an interior longer than the limit can need more blocks than it (x never can:
		// smart.MaxExtent is far below it), so the spaces of other grids are left as they are.
		if b.interior[a] > maxLaunchGrid[a] {
			b.out = attach(b.out, b.launchConstraint(a, merges))
		}
	}
	b.out = attach(b.out, b.resourceConstraint())
	return b.out
}

// unrollConstraint bounds the unroll factor along axis a: by sb along the streaming axis, by
// the merging factor along a merged axis, and to 1 elsewhere (no loop to unroll).
func (b *stencilSpace) unrollConstraint(a int, u string, merges []string) Constraint {
	st := b.oc.Has(smart.ST)
	reads := []string{u}
	var name []string
	if st {
		reads = append(reads, smart.ParamStreamD, smart.ParamStreamB)
		name = append(name, fmt.Sprintf("%s <= sb when sd = %d", u, a+1))
	}
	if merges != nil {
		reads = append(reads, merges[a])
		name = append(name, fmt.Sprintf("%s <= %s", u, merges[a]))
		if st {
			name[len(name)-1] += " otherwise"
		}
	} else {
		name = append(name, fmt.Sprintf("%s = 1 otherwise", u))
	}
	axis := a + 1
	return Constraint{
		Name:  strings.Join(name, ", "),
		Reads: reads,
		Fn: func(v []int) bool {
			if st && v[1] == axis {
				return v[0] <= v[2]
			}
			if merges != nil {
				return v[0] <= v[len(v)-1]
			}
			return v[0] == 1
		},
	}
}

// haloConstraint is temporal blocking's: the halo of r*tt points per side still leaves the
// tile inside the grid along every axis.
func (b *stencilSpace) haloConstraint(merges []string) Constraint {
	dims, r, grid := b.dims, b.r, b.st.Grid
	st := b.oc.Has(smart.ST)
	reads := append([]string{smart.ParamTT}, blockNames[:dims]...)
	reads = append(reads, merges...)
	if st {
		reads = append(reads, smart.ParamStreamD, smart.ParamStreamB)
	}
	tiles := func(v []int) [3]int {
		var tile [3]int
		for a := range dims {
			tile[a] = v[1+a]
			if merges != nil {
				tile[a] *= v[1+dims+a]
			}
		}
		if st {
			tile[v[len(v)-2]-1] = v[len(v)-1]
		}
		return tile
	}
	return Constraint{
		Name:  fmt.Sprintf("tile + 2*%d*tt <= grid extent along every axis", r),
		Reads: reads,
		Fn: func(v []int) bool {
			tile := tiles(v)
			for a := range dims {
				if tile[a]+2*r*v[0] > grid[a] {
					return false
				}
			}
			return true
		},
		Explain: func(v []int) string {
			tile := tiles(v)
			return fmt.Sprintf("the tile %v with a halo of %d points per side does not fit the grid %v", tile[:dims], r*v[0], grid[:dims])
		},
	}
}

// launchConstraint is CUDA's limit on the launch grid along axis a: the interior along it, in
// tiles (LaunchGrid), takes at most maxLaunchGrid[a] blocks. The tile is the block size times
// the merging factor, or sb along the streaming axis, so the constraint is checked where the
// last of those is bound.
func (b *stencilSpace) launchConstraint(a int, merges []string) Constraint {
	reads := []string{blockNames[a]}
	tile := blockNames[a]
	if merges != nil {
		reads = append(reads, merges[a])
		tile += "*" + merges[a]
	}
	if b.oc.Has(smart.ST) {
		reads = append(reads, smart.ParamStreamD, smart.ParamStreamB)
		tile = fmt.Sprintf("(sb if sd = %d, else %s)", a+1, tile)
	}
	decode := b.decoder(reads)
	n, most, axis := b.interior[a], maxLaunchGrid[a], "xyz"[a:a+1]
	tileOf := func(v []int) int { return decode(v).Tile()[a] }
	return Constraint{
		Name:  fmt.Sprintf("ceil(%d / %s) <= %d, CUDA's limit on the blocks of a launch along %s", n, tile, most, axis),
		Reads: reads,
		Fn:    func(v []int) bool { return blocks(n, tileOf(v)) <= most },
		Explain: func(v []int) string {
			return fmt.Sprintf("the %d interior points along %s in tiles of %d take %d blocks, more than the %d a CUDA launch allows; use larger tiles",
				n, axis, tileOf(v), blocks(n, tileOf(v)), most)
		},
	}
}

// resourceConstraint is the implicit constraint: the decoded tuning's registers, shared memory
// and threads fit the GPU (smart.Tuning.Usage and Usage.Fits). It reads every parameter the
// estimate depends on: all but const, and but the unroll factors without streaming (only the
// unrolled streaming loop keeps more values live). Those are decoded as 0 and 1, so const forms
// a group of its own.
func (b *stencilSpace) resourceConstraint() Constraint {
	streaming := b.oc.Has(smart.ST)
	var reads, monotone []string
	for _, p := range b.out {
		switch {
		case p.Name == smart.ParamConst:
		case !streaming && slices.Contains(unrollNames[:], p.Name):
			// without streaming no unroll factor enters the estimate
		case p.Name == smart.ParamStreamD:
			reads = append(reads, p.Name)
		default:
			reads = append(reads, p.Name)
			monotone = append(monotone, p.Name)
		}
	}
	decode := b.decoder(reads)
	shape := resourceStencil(b.st)
	usage := func(v []int) smart.Usage { return decode(v).Usage(shape) }
	// Fits formats an error for every rejection; a generation meets only a few thousand
	// distinct usages among ~10^5-10^6 checks, so the verdicts are kept.
	var mu sync.RWMutex
	verdicts := map[smart.Usage]bool{}
	return Constraint{
		Name:  fmt.Sprintf("registers, shared memory and threads fit the %s", b.gpu.Name),
		Reads: reads,
		Fn: func(v []int) bool {
			u := usage(v)
			mu.RLock()
			ok, known := verdicts[u]
			mu.RUnlock()
			if !known {
				ok = u.Fits(b.gpu) == nil
				mu.Lock()
				verdicts[u] = ok
				mu.Unlock()
			}
			return ok
		},
		Explain: func(v []int) string { return usage(v).Fits(b.gpu).Error() },
		// Usage grows with every numeric parameter and with shared; only the streaming axis,
		// an enumeration, is not ordered.
		Monotone: monotone,
	}
}

// resourceStencil is a stand-in for st in the resource check: the same dimensions, element
// type, grid, steps and order, with only the centre and a farthest point. Usage reads no more of
// a stencil (a test holds the two equal), while reading the order of st itself is a pass over
// all its points (346 for a random order-4 3-D stencil) in each of the ~10^5-10^6 checks of a
// generation.
func resourceStencil(st *smart.Stencil) *smart.Stencil {
	far := smart.Offset{}
	for _, p := range st.Points {
		if p.Off.Chebyshev() > far.Chebyshev() {
			far = p.Off
		}
	}
	pts := []smart.Point{{Off: smart.Offset{}}}
	if far != (smart.Offset{}) {
		pts = append(pts, smart.Point{Off: far})
	}
	return &smart.Stencil{Name: st.Name, Dims: st.Dims, Dtype: st.Dtype, Grid: st.Grid, Steps: st.Steps, Points: pts}
}

// decoder returns a function that builds the tuning of values of the named parameters, as
// smart.DecodeTuning does from a setting with const = 0, without a map: the resource check runs
// millions of times while a space is generated. The tests hold it equal to DecodeTuning.
func (b *stencilSpace) decoder(names []string) func(v []int) smart.Tuning {
	type field struct {
		kind int // one of the cases below
		axis int
	}
	const (
		block = iota
		unroll
		merge
		shared
		sd
		sb
		tt
	)
	fields := make([]field, len(names))
	for i, n := range names {
		f := field{kind: -1}
		for a := range b.dims {
			switch n {
			case blockNames[a]:
				f = field{block, a}
			case unrollNames[a]:
				f = field{unroll, a}
			case bmNames[a], cmNames[a]:
				f = field{merge, a}
			}
		}
		switch n {
		case smart.ParamShared:
			f.kind = shared
		case smart.ParamStreamD:
			f.kind = sd
		case smart.ParamStreamB:
			f.kind = sb
		case smart.ParamTT:
			f.kind = tt
		}
		fields[i] = f
	}
	dims, oc := b.dims, b.oc
	return func(v []int) smart.Tuning {
		t := smart.Tuning{OC: oc, Dims: dims, Block: [3]int{1, 1, 1}, Unroll: [3]int{1, 1, 1}, Merge: [3]int{1, 1, 1}, StreamAxis: -1, SB: 1, TT: 1}
		for i, f := range fields {
			switch f.kind {
			case block:
				t.Block[f.axis] = v[i]
			case unroll:
				t.Unroll[f.axis] = v[i]
			case merge:
				t.Merge[f.axis] = v[i]
			case shared:
				t.Shared = v[i] != 0
			case sd:
				t.StreamAxis = v[i] - 1
			case sb:
				t.SB = v[i]
			case tt:
				t.TT = v[i]
			}
		}
		return t
	}
}

func product(v []int) int {
	n := 1
	for _, x := range v {
		n *= x
	}
	return n
}

// CheckStencilSetting rejects a setting outside the space of st under oc on gpu with the error
// the whole space's Check gives, without generating the whole space: what a single estimate or
// code generation needs (the settings the tuners search and the data sets measure).
func CheckStencilSetting(ctx context.Context, st *smart.Stencil, oc smart.Combination, gpu smart.GPU, set smart.Setting) error {
	params, err := StencilParams(st, oc, gpu)
	if err != nil {
		return err
	}
	// Check reads a parameter's values only to look the setting's value up, so narrowing each
	// list to that value keeps every verdict and message while the space is generated from one
	// candidate instead of ~10^5 (a value not in the list keeps it, for the message).
	for i, p := range params {
		if v, ok := set[p.Name]; ok && slices.Contains(p.Values, v) {
			params[i].Values = []int{v}
		}
	}
	sp, err := New(ctx, params)
	if err != nil {
		return fmt.Errorf("setting space of %s under %s: %w", st.Name, oc, err)
	}
	if err := sp.Check(set); err != nil {
		return fmt.Errorf("invalid setting for %s on %s: %w", oc, gpu.Name, err)
	}
	return nil
}

// BlockRoom reports whether st's grid has room for a thread block of its setting spaces on gpu:
// blocks are powers of two no longer than the interior along each axis (n-2r) and hold at least
// a warp, so on a grid too small for that no OC has a valid setting. The error says why.
func BlockRoom(st *smart.Stencil, gpu smart.GPU) error {
	warp := gpu.WarpSize
	if warp <= 0 {
		warp = 32
	}
	r := st.Order()
	limits := [3]int{MaxBlockX, MaxBlockY, MaxBlockZ}
	threads := 1
	var interior, block []string
	for a := range st.Dims {
		n := st.Grid[a] - 2*r
		b := 0
		if n >= 1 {
			b = slices.Max(PowersOfTwo(1, min(limits[a], n)))
		}
		threads *= b
		interior, block = append(interior, fmt.Sprint(max(n, 0))), append(block, fmt.Sprint(b))
	}
	if threads >= warp {
		return nil
	}
	return fmt.Errorf("the grid leaves an interior of %s points to compute (the extent less 2 x order %d along each axis), whose largest block of powers of two, %s, holds %d of the %d threads of a warp: no setting of any OC fits it; a grid of at least %d points along x (and %d along the others) has room for one",
		strings.Join(interior, "x"), r, strings.Join(block, "x"), threads, warp, warp+2*r, 2*r+1)
}
