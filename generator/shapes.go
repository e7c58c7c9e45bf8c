package generator

import (
	"fmt"
	"strings"

	"smart"
)

// Shape is a named stencil pattern. A family (star, box, cross, diamond) takes its dimensions and
// order from the caller; a classic has fixed ones.
type Shape struct {
	Name  string
	Dims  int // 0 for a family
	Order int // 0 for a family
	Doc   string
	in    func(o smart.Offset, r int) bool // whether offset o of Chebyshev order <= r belongs
}

// Family reports whether the shape takes its dimensions and order from the caller.
func (sh Shape) Family() bool { return sh.Dims == 0 }

func nonZero(o smart.Offset) int {
	n := 0
	for _, v := range o {
		if v != 0 {
			n++
		}
	}
	return n
}

func absInt(v int) int { return max(v, -v) }

func star(o smart.Offset, _ int) bool { return nonZero(o) <= 1 }
func box(smart.Offset, int) bool      { return true }

// cross keeps the main diagonals: points whose non-zero coordinates all have the same magnitude
// and that have every coordinate of the stencil's dimensions non-zero (or are the centre).
func cross(dims int) func(smart.Offset, int) bool {
	return func(o smart.Offset, _ int) bool {
		n := nonZero(o)
		if n == 0 {
			return true
		}
		if n != dims {
			return false
		}
		a := absInt(o[0])
		return absInt(o[1]) == a && (dims == 2 || absInt(o[2]) == a)
	}
}

func diamond(o smart.Offset, r int) bool {
	return absInt(o[0])+absInt(o[1])+absInt(o[2]) <= r
}

// Shapes lists the named shapes: the families first, then the classics by dimensions and size.
func Shapes() []Shape {
	return []Shape{
		{Name: "star", Doc: "centre plus r points along each axis direction: 2*d*r+1 points", in: star},
		{Name: "box", Doc: "every point within Chebyshev distance r: (2r+1)^d points", in: box},
		{Name: "cross", Doc: "centre plus r points along each main diagonal (|x|=|y|[=|z|]): 2^d*r+1 points"},
		{Name: "diamond", Doc: "every point within L1 distance r (|x|+|y|+|z| <= r)", in: diamond},
		{Name: "j2d5pt", Dims: 2, Order: 1, Doc: "2-D Jacobi, 5 points (star of order 1)", in: star},
		{Name: "j2d9pt", Dims: 2, Order: 2, Doc: "2-D Jacobi, 9 points (star of order 2)", in: star},
		{Name: "j2d9pt-gol", Dims: 2, Order: 1, Doc: "2-D 3x3 box, 9 points (Game of Life neighbourhood)", in: box},
		{Name: "j2d13pt", Dims: 2, Order: 3, Doc: "2-D 6th-order Laplacian, 13 points (star of order 3)", in: star},
		{Name: "j2d17pt", Dims: 2, Order: 4, Doc: "2-D 8th-order Laplacian, 17 points (star of order 4)", in: star},
		{Name: "j2d25pt", Dims: 2, Order: 2, Doc: "2-D 5x5 box, 25 points", in: box},
		{Name: "j3d7pt", Dims: 3, Order: 1, Doc: "3-D Jacobi / heat, 7 points (star of order 1)", in: star},
		{Name: "j3d13pt", Dims: 3, Order: 2, Doc: "3-D 4th-order Laplacian, 13 points (star of order 2)", in: star},
		{Name: "j3d19pt", Dims: 3, Order: 1, Doc: "3-D 19 points: 3x3x3 box less its 8 corners (Mehrstellen Poisson)",
			in: func(o smart.Offset, _ int) bool { return nonZero(o) <= 2 }},
		{Name: "j3d25pt", Dims: 3, Order: 4, Doc: "3-D 8th-order Laplacian of seismic codes, 25 points (star of order 4)", in: star},
		{Name: "j3d27pt", Dims: 3, Order: 1, Doc: "3-D 3x3x3 box, 27 points", in: box},
		{Name: "j3d125pt", Dims: 3, Order: 2, Doc: "3-D 5x5x5 box, 125 points", in: box},
	}
}

// ShapeNames lists the names Named accepts, in the order of Shapes.
func ShapeNames() []string {
	var names []string
	for _, sh := range Shapes() {
		names = append(names, sh.Name)
	}
	return names
}

// LookupShape finds a shape by name (case-insensitive).
func LookupShape(name string) (Shape, error) {
	for _, sh := range Shapes() {
		if strings.EqualFold(sh.Name, name) {
			return sh, nil
		}
	}
	return Shape{}, fmt.Errorf("unknown shape %q; the shapes are %s", name, strings.Join(ShapeNames(), ", "))
}

// Named returns the offsets of a named shape in z, y, x order. A family needs dims (2 or 3) and
// order (1 to smart.MaxMaxOrder); a classic takes dims and order 0 or equal to its own.
func Named(name string, dims, order int) ([]smart.Offset, error) {
	sh, err := LookupShape(name)
	if err != nil {
		return nil, err
	}
	return sh.Offsets(dims, order)
}

// Offsets returns the shape's offsets in z, y, x order; see Named for dims and order.
func (sh Shape) Offsets(dims, order int) ([]smart.Offset, error) {
	if !sh.Family() {
		if (dims != 0 && dims != sh.Dims) || (order != 0 && order != sh.Order) {
			return nil, fmt.Errorf("shape %s is %d-D of order %d; leave out the dimensions and order or give those", sh.Name, sh.Dims, sh.Order)
		}
		dims, order = sh.Dims, sh.Order
	}
	if dims != 2 && dims != 3 {
		return nil, fmt.Errorf("shape %s: dims is %d; use 2 or 3", sh.Name, dims)
	}
	if order < 1 || order > smart.MaxMaxOrder {
		return nil, fmt.Errorf("shape %s: order is %d; use 1 to %d", sh.Name, order, smart.MaxMaxOrder)
	}
	in := sh.in
	if in == nil { // cross depends on the dimensions
		in = cross(dims)
	}
	zr := 0
	if dims == 3 {
		zr = order
	}
	var offs []smart.Offset
	for z := -zr; z <= zr; z++ {
		for y := -order; y <= order; y++ {
			for x := -order; x <= order; x++ {
				if o := (smart.Offset{x, y, z}); in(o, order) {
					offs = append(offs, o)
				}
			}
		}
	}
	return offs, nil
}

// Stencil returns the shape as a stencil with the default grid and steps, float64 elements and
// coefficients from smart.DeriveCoefficients. A classic is named by its name, a family by
// shape, dimensions and order, e.g. "box3d-o2".
func (sh Shape) Stencil(dims, order int) (*smart.Stencil, error) {
	offs, err := sh.Offsets(dims, order)
	if err != nil {
		return nil, err
	}
	name := sh.Name
	if sh.Family() {
		name = fmt.Sprintf("%s%dd-o%d", sh.Name, dims, order)
	} else {
		dims, order = sh.Dims, sh.Order
	}
	return smart.NewStencil(name, dims, offs, nil, limitsFor(order))
}

// NamedStencil is LookupShape followed by Shape.Stencil.
func NamedStencil(name string, dims, order int) (*smart.Stencil, error) {
	sh, err := LookupShape(name)
	if err != nil {
		return nil, err
	}
	return sh.Stencil(dims, order)
}
