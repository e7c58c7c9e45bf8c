// Package features turns stencils, settings and GPUs into the fixed-length numeric vectors that
// learned models read: the binary tensor and the neighbour feature set of StencilMART (section
// IV-C, Table II), the encoding of a parameter setting and what the variant is estimated to ask
// of a thread, and a GPU's description. Every vector comes with a name per entry, so a model can
// record the schema it was trained on.
package features

import (
	"fmt"
	"math"

	"smart"
	"smart/internal/bit"
)

// maxOrder resolves a maximum order argument: 0 means smart.DefaultMaxOrder.
func maxOrder(r int) (int, error) {
	if r == 0 {
		return smart.DefaultMaxOrder, nil
	}
	if r < 1 || r > smart.MaxMaxOrder {
		return 0, fmt.Errorf("maximum order %d is not supported: choose 1 to %d", r, smart.MaxMaxOrder)
	}
	return r, nil
}

// TensorShape is the shape of the binary tensor of a dims-D stencil with maximum order r (0 means
// smart.DefaultMaxOrder), slowest axis first: (2r+1)^2 as (y, x) or (2r+1)^3 as (z, y, x).
func TensorShape(dims, r int) []int {
	r, err := maxOrder(r)
	if err != nil {
		return nil
	}
	side := 2*r + 1
	if dims == 3 {
		return []int{side, side, side}
	}
	return []int{side, side}
}

// TensorIndex is the position of offset o in the flat tensor of a dims-D stencil with maximum
// order r (0 means the default): ((z+r)*(2r+1) + y+r)*(2r+1) + x+r, with z = 0 dropped in 2-D.
func TensorIndex(dims, r int, o smart.Offset) int {
	if r == 0 {
		r = smart.DefaultMaxOrder
	}
	side := 2*r + 1
	i := (o[1]+r)*side + o[0] + r
	if dims == 3 {
		i += (o[2] + r) * side * side
	}
	return i
}

// Tensor is the stencil's access pattern as the binary tensor of StencilMART Figure 6: 1 where
// the stencil reads (the centre included), 0 elsewhere, flat in the order of TensorIndex. The
// maximum order r (0 means smart.DefaultMaxOrder) fixes the size, so stencils of any order up to
// r share one shape: 81 values in 2-D and 729 in 3-D by default.
func Tensor(s *smart.Stencil, r int) ([]float64, error) {
	r, err := checkOrder(s, r)
	if err != nil {
		return nil, err
	}
	side := 2*r + 1
	n := side * side
	if s.Dims == 3 {
		n *= side
	}
	t := make([]float64, n)
	for _, p := range s.Points {
		t[TensorIndex(s.Dims, r, p.Off)] = 1
	}
	return t, nil
}

func checkOrder(s *smart.Stencil, r int) (int, error) {
	r, err := maxOrder(r)
	if err != nil {
		return 0, err
	}
	if s.Dims != 2 && s.Dims != 3 {
		return 0, fmt.Errorf("stencil %s: dims is %d; features exist for 2-D and 3-D stencils", s.Name, s.Dims)
	}
	if o := s.Order(); o > r {
		return 0, fmt.Errorf("stencil %s has order %d, beyond the maximum order %d of the features; raise the maximum order", s.Name, o, r)
	}
	return r, nil
}

// StencilNames names the entries of Stencil's vector for maximum order r (0 means the default).
// The schema depends only on r, so 2-D and 3-D stencils share it (z entries of a 2-D stencil
// are those of a flat pattern).
func StencilNames(r int) []string {
	r, err := maxOrder(r)
	if err != nil {
		return nil
	}
	var names []string
	centre := &smart.Stencil{Dims: 3, Dtype: smart.Float64, Grid: [3]int{1, 1, 1}, Points: []smart.Point{{}}}
	encodeStencil(centre, r, func(name string, _ float64) { names = append(names, name) })
	return names
}

// Stencil is the stencil's feature vector for maximum order r (0 means smart.DefaultMaxOrder), in
// the order of StencilNames:
//
//   - dims, bytes_per_elem: dimensions and element size in bytes;
//   - order, nnz, sparsity: Table II's maximum Chebyshev distance, accessed points (centre
//     included) and nnz over the tensor size (2r+1)^dims;
//   - nnz_o1..nnz_oR and nnz_ratio_o1..nnz_ratio_oR: Table II's points at Chebyshev distance n,
//     and that count over the (2n+1)^dims - (2n-1)^dims points at that distance;
//   - min_x, max_x, min_y, max_y, min_z, max_z: the extent of the pattern along each axis;
//   - axis_px, axis_nx, axis_py, axis_ny, axis_pz, axis_nz: points on each axis direction, the
//     centre excluded (p: positive, n: negative);
//   - diag_face, diag_body: points on a diagonal of two axes (two equal-magnitude non-zero
//     coordinates, the third zero) and on a main diagonal of three axes (3-D only);
//   - flops: floating-point operations per output point, nnz multiplies and nnz-1 adds;
//   - sym_x, sym_y, sym_z, sym_point: 1 when the pattern (not the coefficients) is unchanged by
//     mirroring that axis, or by mirroring all axes, else 0;
//   - log2_grid_x, log2_grid_y, log2_grid_z: log2 of the grid extents (0 for z in 2-D).
func Stencil(s *smart.Stencil, r int) ([]float64, error) {
	r, err := checkOrder(s, r)
	if err != nil {
		return nil, err
	}
	v := make([]float64, 0, 30+2*r)
	encodeStencil(s, r, func(_ string, x float64) { v = append(v, x) })
	return v, nil
}

// encodeStencil calls add for each feature in schema order; the one function that defines both
// the names and the values keeps them aligned.
func encodeStencil(s *smart.Stencil, r int, add func(name string, v float64)) {
	nnz := len(s.Points)
	perOrder := make([]int, r+1)
	var lo, hi smart.Offset
	var axis [3][2]int // [axis][0: positive, 1: negative]
	face, body := 0, 0
	side := 2*r + 1
	set := make([]bool, side*side*side) // the pattern, indexed as a 3-D tensor
	for _, p := range s.Points {
		o := p.Off
		set[TensorIndex(3, r, o)] = true
		perOrder[o.Chebyshev()]++
		nz, mag, same, last := 0, 0, true, 0
		for a, c := range o {
			lo[a], hi[a] = min(lo[a], c), max(hi[a], c)
			if c == 0 {
				continue
			}
			nz, last = nz+1, a
			if m := max(c, -c); mag == 0 {
				mag = m
			} else if m != mag {
				same = false
			}
		}
		switch {
		case nz == 1:
			axis[last][bit.Of(o[last] < 0)]++
		case nz == 2 && same:
			face++
		case nz == 3 && same:
			body++
		}
	}
	add("dims", float64(s.Dims))
	add("bytes_per_elem", float64(s.Dtype.Size()))
	add("order", float64(s.Order()))
	add("nnz", float64(nnz))
	add("sparsity", float64(nnz)/math.Pow(float64(side), float64(s.Dims)))
	for n := 1; n <= r; n++ {
		add(fmt.Sprintf("nnz_o%d", n), float64(perOrder[n]))
	}
	for n := 1; n <= r; n++ {
		shell := math.Pow(float64(2*n+1), float64(s.Dims)) - math.Pow(float64(2*n-1), float64(s.Dims))
		add(fmt.Sprintf("nnz_ratio_o%d", n), float64(perOrder[n])/shell)
	}
	for a, name := range [3]string{"x", "y", "z"} {
		add("min_"+name, float64(lo[a]))
		add("max_"+name, float64(hi[a]))
	}
	for a, name := range [3]string{"x", "y", "z"} {
		add("axis_p"+name, float64(axis[a][0]))
		add("axis_n"+name, float64(axis[a][1]))
	}
	add("diag_face", float64(face))
	add("diag_body", float64(body))
	add("flops", float64(2*nnz-1))
	mirror := func(flip [3]bool) float64 {
		for _, p := range s.Points {
			o := p.Off
			for a := range 3 {
				if flip[a] {
					o[a] = -o[a]
				}
			}
			if !set[TensorIndex(3, r, o)] {
				return 0
			}
		}
		return 1
	}
	add("sym_x", mirror([3]bool{true, false, false}))
	add("sym_y", mirror([3]bool{false, true, false}))
	add("sym_z", mirror([3]bool{false, false, true}))
	add("sym_point", mirror([3]bool{true, true, true}))
	for a, name := range [3]string{"x", "y", "z"} {
		add("log2_grid_"+name, math.Log2(float64(max(s.Grid[a], 1))))
	}
}
