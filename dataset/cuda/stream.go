package cuda

import (
	"fmt"
	"slices"
	"strings"

	"smart"
	"smart/internal/intmath"
)

// streamKernel writes the streaming kernel (2.5-D blocking with concurrent streaming) that
// advances nt time steps. A block covers a tile of the plane across the streaming axis s and
// walks its chunk of sb planes along s; the grid has one block per chunk.
//
// The kernel is a pipeline of levels, one per time step: level 0 is the input, level nt the
// output. Every iteration of the walk loads one plane of level 0 and advances every level by
// one plane, level k lagging level k-1 by r+1 planes (by r when level 0 is read from global
// memory), so the planes it reads were written in earlier iterations and one barrier per
// iteration suffices. Level k keeps a region of the tile plus a halo of r*(nt-k) per side
// (overlapped temporal blocking, pipelined over the planes as in AN5D); the chunk is likewise
// extended by r*(nt-k) planes at both ends.
//
// Stored levels (level 0 with shared=1, every intermediate level) keep a ring of planes in
// shared memory: 2r+2 without retiming (the 2r+1 planes read and the one being written), 2 with
// retiming. With shared=0, level 0 is read through the read-only path and each thread keeps a
// register window of 2r+1 values along its column (the in-column neighbours). Retiming
// decomposes the sum by plane: each consumed plane adds its part to the 2r+1 partial sums of
// the outputs it touches, carried in registers, and the oldest is complete. Prefetching loads the
// next plane into registers before the current one is computed and stores it after the barrier.
func (g *gen) streamKernel(w *writer, name string, nt int) int {
	t, r := g.t, g.r
	s := t.StreamAxis
	var plane []int
	for a := 0; a < g.dims; a++ {
		if a != s {
			plane = append(plane, a)
		}
	}
	rt, pr := t.OC.Has(smart.RT), t.OC.Has(smart.PR)
	ring := 2*r + 2
	if rt {
		ring = 2
	}
	ext := func(k int) [3]int {
		e := [3]int{1, 1, 1}
		for _, a := range plane {
			e[a] = g.tile[a] + 2*r*(nt-k)
		}
		return e
	}
	area := func(k int) int { return product(plane, ext(k)) }
	first := 1
	if t.Shared {
		first = 0
	}
	off := map[int]int{} // offset of level k's ring in shared memory
	elems := 0
	for k := first; k < nt; k++ {
		off[k] = elems
		elems += ring * area(k)
	}
	lag := make([]int, nt+1) // level k computes plane q - lag[k] when level 0 loads plane q
	for k := 1; k <= nt; k++ {
		lag[k] = lag[k-1] + r + 1
		if k == 1 && !t.Shared {
			lag[k] = r
		}
	}
	halo := r * nt
	offs := ring * intmath.CeilDiv(halo+lag[nt]+r+2, ring) // keeps slot arithmetic non-negative
	threads := t.Threads()
	sn, sN := axisNames[s], extentName(s)
	stored := func(k int) bool { return k >= first && k < nt }
	slot := func(k int, plane string) string {
		return fmt.Sprintf("smem + %d + ((%s - s0 + %d) %% %d) * %d", off[k], plane, offs, ring, area(k))
	}
	count := func(k int) int {
		if k == nt {
			return g.mergedCount(plane)
		}
		return intmath.CeilDiv(area(k), threads)
	}
	window := !t.Shared && !rt  // register window along the column of each level-1 point
	centrePF := !t.Shared && pr // prefetched next in-column value of each level-1 point
	planePF := t.Shared && pr   // prefetched share of the next level-0 plane
	registers := func(k int) bool { return rt || (k == 1 && (window || centrePF)) }

	w.line("")
	w.line("__global__ void __launch_bounds__(%d) %s(const real* __restrict__ in, real* __restrict__ out) {", threads, name)
	g.threadDecls(w, plane, elems > 0 || nt > 1)
	for _, a := range plane {
		n := axisNames[a]
		w.line("const int o%s = R + (int)blockIdx.%s * %d;  // tile origin", n, n, g.tile[a])
	}
	w.line("const int s0 = R + (int)blockIdx.%s * %d;  // first output plane of the block's chunk along %s", sn, t.SB, sn)
	w.line("const int send = s0 + %d < %s - R ? s0 + %d : %s - R;", t.SB, sN, t.SB, sN)
	w.line("const int niter = send - s0 + %d;", halo+lag[nt])
	if elems > 0 {
		w.line("SMART_DYNAMIC_SHARED(real, smem);")
	}
	if window {
		w.line("real w[%d][2 * R + 1] = {};  // column window: planes q-2R..q of each level-1 point", count(1))
	}
	if rt {
		for k := 1; k <= nt; k++ {
			w.line("real acc%d[%d][2 * R + 1] = {};  // level-%d partial sums of planes %s..%s+2R", k, count(k), k, sn, sn)
		}
	}
	// centre reads level 0 at the level-1 point's column on plane zq, or 0 outside the grid.
	centre := func(zq string) string {
		return fmt.Sprintf("(%s && %s >= 0 && %s < %s) ? __ldg(in + %s) : real(0)", g.ingrid(plane), zq, zq, sN, g.gidxWith(s, zq))
	}
	if centrePF {
		w.line("real pf[%d];  // prefetched in-column value of the next plane", count(1))
		close := g.levelPoints(w, 1, nt, plane, ext(1), true)
		w.line("pf[j] = %s;", centre(fmt.Sprintf("s0 - %d", halo)))
		closeN(w, close)
	}
	if planePF {
		w.line("real pf[%d];  // prefetched share of the next level-0 plane", intmath.CeilDiv(area(0), threads))
		close := g.coopRegisterLoop(w, area(0), threads, plane, ext(0), halo)
		w.line("pf[j] = (%s && s0 - %d >= 0 && s0 - %d < %s) ? in[%s] : real(0);", g.ingrid(plane), halo, halo, sN, g.gidxWith(s, fmt.Sprintf("s0 - %d", halo)))
		closeN(w, close)
	}
	w.line("#pragma unroll %d", t.Unroll[s])
	w.line("for (int i = 0; i < niter; ++i) {")
	w.line("const int q = s0 - %d + i;  // the level-0 plane loaded in this iteration", halo)
	if t.Shared {
		w.line("{")
		w.line("real* dst = %s;", slot(0, "q"))
		if planePF {
			w.line("// Level 0: store plane q, prefetched during the previous iteration; prefetch plane q + 1.")
			close := g.coopRegisterLoop(w, area(0), threads, plane, ext(0), halo)
			w.line("dst[e] = pf[j];")
			w.line("pf[j] = (%s && q + 1 >= 0 && q + 1 < %s) ? in[%s] : real(0);", g.ingrid(plane), sN, g.gidxWith(s, "q + 1"))
			closeN(w, close)
		} else {
			w.line("// Level 0: stage plane q.")
			w.line("for (int e = tid; e < %d; e += %d) {", area(0), threads)
			g.coopCoords(w, plane, ext(0), halo)
			w.line("dst[e] = (%s && q >= 0 && q < %s) ? in[%s] : real(0);", g.ingrid(plane), sN, g.gidxWith(s, "q"))
			w.line("}")
		}
		w.line("}")
	}
	for k := 1; k <= nt; k++ {
		h := r * (nt - k)
		w.line("{")
		w.line("const int %s = q - %d;  // the level-%d plane computed in this iteration", sn, lag[k], k)
		act := fmt.Sprintf("%s >= s0 && %s < send", sn, sn)
		if k < nt {
			act = fmt.Sprintf("%s >= s0 - %d && %s < send + %d && %s >= 0 && %s < %s", sn, h, sn, h, sn, sn, sN)
		}
		// Only level 1 reads level 0 from global memory through the window or the prefetch.
		if rt {
			g.retimedLevel(w, k, nt, plane, ext, stored, slot, act, centre, centrePF && k == 1)
		} else {
			g.plainLevel(w, k, nt, plane, ext, stored, slot, act, centre, window && k == 1, centrePF && k == 1, registers(k))
		}
		w.line("}")
	}
	if elems > 0 {
		g.sync(w)
	}
	w.line("}")
	w.line("}")
	return elems
}

// plainLevel writes level k of the streaming pipeline without retiming: the full sum over the
// 2r+1 planes around plane s of level k-1.
func (g *gen) plainLevel(w *writer, k, nt int, plane []int, ext func(int) [3]int, stored func(int) bool,
	slot func(int, string) string, act string, centre func(string) string, window, centrePF, registers bool) {
	s := g.t.StreamAxis
	sn := axisNames[s]
	var read func(o smart.Offset) string
	var centreDecl string
	var planeDecls []string
	if stored(k - 1) {
		pe := ext(k - 1)
		strides := regionStrides(plane, pe)
		for _, d := range g.streamOffsets() {
			planeDecls = append(planeDecls, fmt.Sprintf("const real* %s = %s;", planeVar(d), slot(k-1, planeAt(sn, d))))
		}
		centreDecl = fmt.Sprintf("const int c = %s;", centreIndex(plane, pe))
		read = func(o smart.Offset) string {
			d := o[s]
			o[s] = 0
			return fmt.Sprintf("%s[%s]", planeVar(d), pointerPlus("c", linear(o, strides)))
		}
	} else {
		centreDecl = fmt.Sprintf("const real* c = in + %s;", g.gidx())
		read = func(o smart.Offset) string {
			if inColumn(o, s) {
				return fmt.Sprintf("w[j][%d]", g.r+o[s])
			}
			return fmt.Sprintf("__ldg(%s)", pointerPlus("c", linear(o, g.globalStrides())))
		}
	}
	expr := g.sum(nil, read)
	if registers {
		w.line("const bool act = %s;", act)
	} else {
		w.line("if (%s) {", act)
	}
	for _, d := range planeDecls {
		w.line("%s", d)
	}
	close := g.levelPoints(w, k, nt, plane, ext(k), registers)
	if window {
		w.line("#pragma unroll")
		w.line("for (int d = 0; d < 2 * R; ++d) w[j][d] = w[j][d + 1];")
		if centrePF {
			w.line("w[j][2 * R] = pf[j];")
			w.line("pf[j] = %s;", centre("q + 1"))
		} else {
			w.line("w[j][2 * R] = %s;", centre("q"))
		}
		w.line("if (act) {")
	}
	g.storeLevel(w, k, nt, plane, slot, centreDecl, expr)
	if window {
		w.line("}")
	}
	closeN(w, close)
	if !registers {
		w.line("}")
	}
}

// retimedLevel writes level k of the streaming pipeline with retiming: level k consumes plane
// s + r of level k-1, adds to each of its points' partial sums the terms that plane
// contributes (the terms with streaming offset d go to the output plane s + r - d), and the
// partial sum of plane s is then complete.
func (g *gen) retimedLevel(w *writer, k, nt int, plane []int, ext func(int) [3]int, stored func(int) bool,
	slot func(int, string) string, act string, centre func(string) string, centrePF bool) {
	s, r := g.t.StreamAxis, g.r
	sn, sN := axisNames[s], extentName(s)
	hc := r * (nt - k + 1) // halo of level k-1
	sc := sn + "c"
	w.line("const int %s = %s + R;  // the level-%d plane consumed", sc, sn, k-1)
	w.line("const bool take = %s >= s0 - %d && %s < send + %d && %s >= 0 && %s < %s;", sc, hc, sc, hc, sc, sc, sN)
	w.line("const bool act = %s;", act)
	var read func(o smart.Offset) string
	var decl string
	if stored(k - 1) {
		pe := ext(k - 1)
		strides := regionStrides(plane, pe)
		w.line("const real* pc = %s;", slot(k-1, sc))
		decl = fmt.Sprintf("const int c = %s;", centreIndex(plane, pe))
		read = func(o smart.Offset) string {
			o[s] = 0
			return fmt.Sprintf("pc[%s]", pointerPlus("c", linear(o, strides)))
		}
	} else {
		decl = fmt.Sprintf("const real* c = in + %s;", g.gidxWith(s, sc))
		read = func(o smart.Offset) string {
			if centrePF && inColumn(o, s) {
				return "cur"
			}
			o[s] = 0
			return fmt.Sprintf("__ldg(%s)", pointerPlus("c", linear(o, g.globalStrides())))
		}
	}
	acc := fmt.Sprintf("acc%d", k)
	close := g.levelPoints(w, k, nt, plane, ext(k), true)
	if centrePF {
		w.line("const real cur = pf[j];")
		w.line("pf[j] = %s;", centre("q + 1"))
	}
	w.line("if (take && %s) {", g.interior(plane, k < nt))
	w.line("%s", decl)
	for _, d := range g.streamOffsets() {
		w.line("%s[j][%d] += %s;", acc, r-d, g.sum(func(o smart.Offset) bool { return o[s] == d }, read))
	}
	w.line("}")
	w.line("if (act) {")
	g.storeLevel(w, k, nt, plane, slot, "", acc+"[j][0]")
	w.line("}")
	w.line("#pragma unroll")
	w.line("for (int d = 0; d < 2 * R; ++d) %s[j][d] = %s[j][d + 1];", acc, acc)
	w.line("%s[j][2 * R] = real(0);", acc)
	closeN(w, close)
}

// storeLevel writes the value of level k at the current point of the streamed plane: into the
// level's slot for an intermediate level (boundary points keep the input's value), into out for
// the last one. decl, when not empty, declares what value reads.
func (g *gen) storeLevel(w *writer, k, nt int, plane []int, slot func(int, string) string, decl, value string) {
	s := g.t.StreamAxis
	sn := axisNames[s]
	if k < nt {
		w.line("real v = real(0);")
		w.line("if (%s && %s >= R && %s < %s - R) {", g.interior(plane, true), sn, sn, extentName(s))
		if decl != "" {
			w.line("%s", decl)
		}
		w.line("v = %s;", value)
		w.line("} else if (%s) {", g.ingrid(plane))
		w.line("v = in[%s];  // boundary points keep their value", g.gidx())
		w.line("}")
		w.line("real* dst = %s;", slot(k, sn))
		w.line("dst[e] = v;")
		return
	}
	w.line("if (%s) {", g.interior(plane, false))
	if decl != "" {
		w.line("%s", decl)
	}
	w.line("out[%s] = %s;", g.gidx(), value)
	w.line("}")
}

// levelPoints opens the loop over a thread's points of level k: its merged points of the tile
// for the output level, a cooperative share of the region otherwise. With registers the loop
// runs over a fixed count and declares j, so per-point register arrays stay in registers when
// unrolled. It returns how many braces to close.
func (g *gen) levelPoints(w *writer, k, nt int, plane []int, ext [3]int, registers bool) int {
	if k == nt {
		return g.mergedLoops(w, plane, registers)
	}
	h := g.r * (nt - k)
	n := product(plane, ext)
	if registers {
		return g.coopRegisterLoop(w, n, g.t.Threads(), plane, ext, h)
	}
	w.line("for (int e = tid; e < %d; e += %d) {", n, g.t.Threads())
	g.coopCoords(w, plane, ext, h)
	return 1
}

// coopRegisterLoop opens a fully unrolled loop over a thread's fixed share j of a region of n
// elements, declaring e and the coordinates.
func (g *gen) coopRegisterLoop(w *writer, n, threads int, axes []int, ext [3]int, halo int) int {
	w.line("#pragma unroll")
	w.line("for (int j = 0; j < %d; ++j) {", intmath.CeilDiv(n, threads))
	w.line("const int e = tid + j * %d;", threads)
	close := 1
	if n%threads != 0 {
		w.line("if (e < %d) {", n)
		close++
	}
	g.coopCoords(w, axes, ext, halo)
	return close
}

func closeN(w *writer, n int) {
	for range n {
		w.line("}")
	}
}

// pointerPlus writes pointer p moved by the signed offset off.
func pointerPlus(p, off string) string {
	switch {
	case off == "0":
		return p
	case strings.HasPrefix(off, "-"):
		return p + " - " + off[1:]
	}
	return p + " + " + off
}

// streamOffsets are the distinct offsets along the streaming axis of the points, ascending.
func (g *gen) streamOffsets() []int {
	var ds []int
	for _, p := range g.pts {
		if d := p.Off[g.t.StreamAxis]; !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	return ds
}

// inColumn reports whether o lies on the centre's column along axis s.
func inColumn(o smart.Offset, s int) bool {
	for a := range o {
		if a != s && o[a] != 0 {
			return false
		}
	}
	return true
}

func planeVar(d int) string {
	switch {
	case d < 0:
		return fmt.Sprintf("p_m%d", -d)
	case d > 0:
		return fmt.Sprintf("p_p%d", d)
	}
	return "p_0"
}

func planeAt(v string, d int) string {
	switch {
	case d < 0:
		return fmt.Sprintf("%s - %d", v, -d)
	case d > 0:
		return fmt.Sprintf("%s + %d", v, d)
	}
	return v
}

// centreIndex writes the index, in a region of level k-1 with extents pe, of the centre of a
// level-k point whose region-local coordinates are l<axis> (level k-1 has r more halo).
func centreIndex(axes []int, pe [3]int) string {
	var idx string
	for i := len(axes) - 1; i >= 0; i-- {
		a := axes[i]
		if idx == "" {
			idx = fmt.Sprintf("(l%s + R)", axisNames[a])
		} else {
			idx = fmt.Sprintf("(l%s + R) + %d * (%s)", axisNames[a], pe[a], idx)
		}
	}
	return idx
}

// gidxWith writes the global index with the coordinate along axis s replaced by expr.
func (g *gen) gidxWith(s int, expr string) string {
	args := make([]string, g.dims)
	for a := range args {
		args[a] = axisNames[a]
	}
	args[s] = expr
	return "gidx(" + strings.Join(args, ", ") + ")"
}
