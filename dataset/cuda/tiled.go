package cuda

import (
	"fmt"

	"smart"
)

// tiledKernel writes the kernel without streaming that advances nt time steps: each block
// computes one tile (Block*Merge points per axis); each thread its merged points, adjacent
// (BM) or a block-width apart (CM). With nt > 1 (temporal blocking) the block loads its tile
// with a halo of r*nt, computes nt-1 intermediate steps in shared memory on regions that shrink
// by r per step (overlapped tiling: neighbouring blocks compute their shared halo redundantly)
// and writes only the last step. Level 0 (the input) is staged in shared memory with shared=1
// and read through the read-only path otherwise; intermediate levels ping-pong between two
// shared buffers. It returns the number of shared elements a block uses.
func (g *gen) tiledKernel(w *writer, name string, nt int) int {
	t, r, dims := g.t, g.r, g.dims
	axes := make([]int, dims)
	for a := range axes {
		axes[a] = a
	}
	ext := func(k int) [3]int {
		e := [3]int{1, 1, 1}
		for _, a := range axes {
			e[a] = g.tile[a] + 2*r*(nt-k)
		}
		return e
	}
	first := 1 // first level held in shared memory
	if t.Shared {
		first = 0
	}
	var stored []int
	for k := first; k < nt; k++ {
		stored = append(stored, k)
	}
	// buffer[k] is the offset of level k's buffer: levels alternate between two buffers sized
	// for the first two stored levels (later levels are smaller).
	buffer := map[int]int{}
	elems := 0
	for i, k := range stored {
		if i < 2 {
			buffer[k] = elems
			elems += product(axes, ext(k))
		} else {
			buffer[k] = buffer[stored[i-2]]
		}
	}
	threads := t.Threads()

	w.line("")
	w.line("__global__ void __launch_bounds__(%d) %s(const real* __restrict__ in, real* __restrict__ out) {", threads, name)
	g.threadDecls(w, axes, len(stored) > 0)
	for _, a := range axes {
		n := axisNames[a]
		w.line("const int o%s = R + (int)blockIdx.%s * %d;  // tile origin", n, n, g.tile[a])
	}
	if elems > 0 {
		w.line("SMART_DYNAMIC_SHARED(real, smem);")
	}
	if t.Shared {
		e := ext(0)
		w.line("// Level 0: stage the tile and its halo of %d points.", r*nt)
		w.line("for (int e = tid; e < %d; e += %d) {", product(axes, e), threads)
		g.coopCoords(w, axes, e, r*nt)
		w.line("smem[%d + e] = (%s) ? in[%s] : real(0);", buffer[0], g.ingrid(axes), g.gidx())
		w.line("}")
		g.sync(w)
	}
	// source returns the pointer declaration of the centre of a level-k point in level k-1, the
	// strides of level k-1 and how a neighbour is read.
	source := func(k int) (string, [3]int64, func(string) string) {
		if k-1 < first {
			return fmt.Sprintf("const real* c = in + %s;", g.gidx()), g.globalStrides(), func(off string) string {
				return fmt.Sprintf("__ldg(%s)", pointerPlus("c", off))
			}
		}
		pe := ext(k - 1)
		strides := regionStrides(axes, pe)
		return fmt.Sprintf("const real* c = smem + %d + %s;", buffer[k-1], centreIndex(axes, pe)), strides, func(off string) string {
			return fmt.Sprintf("c[%s]", off)
		}
	}
	for k := 1; k < nt; k++ {
		e := ext(k)
		decl, strides, read := source(k)
		w.line("// Level %d: step %d on the tile and a halo of %d points.", k, k, r*(nt-k))
		w.line("for (int e = tid; e < %d; e += %d) {", product(axes, e), threads)
		g.coopCoords(w, axes, e, r*(nt-k))
		w.line("real v = real(0);")
		w.line("if (%s) {", g.interior(axes, true))
		w.line("%s", decl)
		w.line("v = %s;", g.sum(nil, func(o smart.Offset) string { return read(linear(o, strides)) }))
		w.line("} else if (%s) {", g.ingrid(axes))
		w.line("v = in[%s];  // boundary points keep their value", g.gidx())
		w.line("}")
		w.line("smem[%d + e] = v;", buffer[k])
		w.line("}")
		g.sync(w)
	}
	decl, strides, read := source(nt)
	w.line("// Level %d: the thread's points of the tile, written out.", nt)
	open := g.mergedLoops(w, axes, false)
	w.line("if (%s) {", g.interior(axes, false))
	w.line("%s", decl)
	w.line("out[%s] = %s;", g.gidx(), g.sum(nil, func(o smart.Offset) string { return read(linear(o, strides)) }))
	w.line("}")
	for range open {
		w.line("}")
	}
	w.line("}")
	return elems
}
