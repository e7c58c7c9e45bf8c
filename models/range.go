package models

import (
	"fmt"
	"slices"
	"strings"

	"smart"
)

// Range is what the stencils of a model's data covered, so that a prediction for a stencil
// outside it can say so (and be bounded by the analytic model): smart train records it in the
// model's header, bench/defaults in the defaults manifest.
type Range struct {
	Stencils int           `json:"stencils"`
	Seed     uint64        `json:"seed"`   // of the random stencils; 0 for measured ones
	Orders   [2]int        `json:"orders"` // lowest and highest
	Dtypes   []smart.Dtype `json:"dtypes"`
	// Grids are the grid extents (x, y, z) the stencils had.
	Grids   [][3]int `json:"grids"`
	Steps   int      `json:"steps"`
	Samples int      `json:"samples_per_oc"` // settings per stencil, OC and GPU (the most, where they differ); 0 where not counted
	GPUs    []string `json:"gpus"`
}

// RangeOf is the range of sts (orders, element types, grids, steps; the seed and samples are the
// caller's) and of the GPUs named gpus, in their order.
func RangeOf(sts []*smart.Stencil, gpus []string) Range {
	r := Range{Stencils: len(sts), Orders: [2]int{smart.MaxMaxOrder, 0}}
	for _, st := range sts {
		r.Orders[0], r.Orders[1] = min(r.Orders[0], st.Order()), max(r.Orders[1], st.Order())
		if !slices.Contains(r.Dtypes, st.Dtype) {
			r.Dtypes = append(r.Dtypes, st.Dtype)
		}
		if !slices.Contains(r.Grids, st.Grid) {
			r.Grids = append(r.Grids, st.Grid)
		}
		r.Steps = max(r.Steps, st.Steps)
	}
	if len(sts) == 0 {
		r.Orders = [2]int{}
	}
	slices.Sort(r.Dtypes)
	slices.SortFunc(r.Grids, func(a, b [3]int) int { return slices.Compare(a[:], b[:]) })
	for _, g := range gpus {
		if !slices.Contains(r.GPUs, g) {
			r.GPUs = append(r.GPUs, g)
		}
	}
	return r
}

// Outside lists the ways st lies outside the stencils of r (order, element type, grid), each as
// a sentence; nil when it lies inside. A grid lies outside where one of its extents does (a
// 1048576x3x3 grid is no 512x512x512 one, though their points are alike) or its points do.
func (r Range) Outside(st *smart.Stencil) []string {
	var out []string
	if o := st.Order(); o < r.Orders[0] || o > r.Orders[1] {
		out = append(out, fmt.Sprintf("order %d is outside the trained orders %d-%d", o, r.Orders[0], r.Orders[1]))
	}
	if len(r.Dtypes) > 0 && !slices.Contains(r.Dtypes, st.Dtype) {
		out = append(out, fmt.Sprintf("element type %s was not trained on (only %v)", st.Dtype, r.Dtypes))
	}
	if len(r.Grids) == 0 {
		return out
	}
	lo, hi := r.Grids[0], r.Grids[0]
	ext := [2][3]int{r.Grids[0], r.Grids[0]} // the least and greatest extent of each axis
	for _, g := range r.Grids {
		if points(g) < points(lo) {
			lo = g
		}
		if points(g) > points(hi) {
			hi = g
		}
		for a := range 3 {
			ext[0][a], ext[1][a] = min(ext[0][a], g[a]), max(ext[1][a], g[a])
		}
	}
	if p := st.GridPoints(); p < points(lo) || p > points(hi) {
		trained := smart.FormatGrid(lo, gridDims(lo))
		if hi != lo {
			trained += " to " + smart.FormatGrid(hi, gridDims(hi))
		}
		out = append(out, fmt.Sprintf("the grid of %d points is outside the trained %s", p, trained))
	} else {
		var axes []string
		for a := range st.Dims {
			if e := st.Grid[a]; e < ext[0][a] || e > ext[1][a] {
				axes = append(axes, fmt.Sprintf("%c extent %d is outside the trained %d-%d", "xyz"[a], e, ext[0][a], ext[1][a]))
			}
		}
		if len(axes) > 0 {
			out = append(out, fmt.Sprintf("the grid %s has the points of the trained grids but not their shape: %s", smart.FormatGrid(st.Grid, st.Dims), strings.Join(axes, ", ")))
		}
	}
	return out
}

func points(g [3]int) int64 { return int64(g[0]) * int64(g[1]) * int64(max(g[2], 1)) }

// gridDims is the dimensions of a trained grid: a 2-D grid's z extent is 1.
func gridDims(g [3]int) int {
	if g[2] > 1 {
		return 3
	}
	return 2
}
