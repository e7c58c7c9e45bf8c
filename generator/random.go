// Package generator makes stencil patterns: random ones drawn with Algorithm 1 of StencilMART
// (section IV-B), and named shapes (star, box, cross, diamond and the classic jXdYpt benchmarks).
// It also writes stencil files laid out for reading.
package generator

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"smart"
)

// DefaultKeep is the probability with which Random keeps each candidate neighbour. At 1/2 every
// non-empty subset of an order's candidates is equally likely.
const DefaultKeep = 0.5

// Random draws the offsets of a dims-D stencil of exactly the given order with StencilMART's
// Algorithm 1, reading only rng.
//
// Order 1 draws from the centre's neighbours (Chebyshev distance 1). Order n > 1 draws from the
// neighbours of the points drawn at order n-1, less those of order n-1 and n-2 (and the centre),
// so every candidate has order n. The random() of the algorithm is: the candidates are listed in
// z, y, x order and each is kept when rng.Float64() < keep; when none is kept the whole draw is
// repeated (for a small keep, drawn directly once the redraws pass a bound, so that any keep
// takes milliseconds), so each order's draw is a non-empty subset, with probability
// proportional to keep^k (1-keep)^(m-k) for k kept of m candidates. The result is the centre
// followed by every order's points, each order in z, y, x order.
func Random(rng *rand.Rand, dims, order int, keep float64) ([]smart.Offset, error) {
	if dims != 2 && dims != 3 {
		return nil, fmt.Errorf("random stencil: dims is %d; use 2 or 3", dims)
	}
	if order < 1 || order > smart.MaxMaxOrder {
		return nil, fmt.Errorf("random stencil: order is %d; use 1 to %d", order, smart.MaxMaxOrder)
	}
	if !(keep > 0 && keep <= 1) {
		return nil, fmt.Errorf("random stencil: keep probability is %v; use a number in (0, 1]", keep)
	}
	deltas := neighbourDeltas(dims)
	side := 2*order + 1
	zr, box := 0, side*side // z radius and points of the cube of radius order
	if dims == 3 {
		zr, box = 1, box*side
	}
	index := func(o smart.Offset) int {
		return ((o[2]+order*zr)*side+o[1]+order)*side + o[0] + order
	}
	marked := make([]bool, box) // candidates of the current order
	// Room for about keep of the box, near the expected size, spares most regrowth.
	out := make([]smart.Offset, 1, 16+int(keep*float64(box)))
	prev := out
	inner := side - 2 // points of order < order: the cube of radius order-1
	inner = inner * inner * max(1, zr*inner)
	cands := make([]smart.Offset, 0, box-inner) // the outermost shell is the largest
	for n := 1; n <= order; n++ {
		for _, p := range prev {
			for _, d := range deltas {
				if q := (smart.Offset{p[0] + d[0], p[1] + d[1], p[2] + d[2]}); q.Chebyshev() == n {
					marked[index(q)] = true
				}
			}
		}
		// Reading the marks back over the cube of radius n lists the candidates in z, y, x order.
		cands = cands[:0]
		for z := -n * zr; z <= n*zr; z++ {
			for y := -n; y <= n; y++ {
				for x := -n; x <= n; x++ {
					if q := (smart.Offset{x, y, z}); marked[index(q)] {
						marked[index(q)] = false
						cands = append(cands, q)
					}
				}
			}
		}
		start := len(out)
		out = keepSome(rng, out, cands, keep)
		prev = out[start:]
	}
	return out, nil
}

// redrawBudget bounds the candidates keepSome tests by redrawing. Past it keepSome draws the
// non-empty subset directly: a small keep would otherwise redraw for ever, and the redraws kept
// below it leave the stream of every spec that ever finished (data-set plans name stencils by
// spec and index) as it was.
const redrawBudget = 1 << 16

// keepSome appends to out a non-empty subset of cands (which must not be empty), keeping each
// with probability keep and conditioned on keeping at least one.
func keepSome(rng *rand.Rand, out, cands []smart.Offset, keep float64) []smart.Offset {
	start := len(out)
	for tested := 0; tested < redrawBudget; tested += len(cands) {
		for _, c := range cands {
			if rng.Float64() < keep {
				out = append(out, c)
			}
		}
		if len(out) > start {
			return out
		}
	}
	return keepSomeDirect(rng, out, cands, keep)
}

// keepSomeDirect draws what keepSome does without redrawing, reading rng at most len(cands)
// times.
func keepSomeDirect(rng *rand.Rand, out, cands []smart.Offset, keep float64) []smart.Offset {
	// The first kept candidate is i with probability (1-keep)^i keep / (1-(1-keep)^m); invert
	// that distribution's CDF, in logarithms so that a keep too small to change 1-keep still
	// counts. The candidates after it are kept independently.
	m := len(cands)
	lq := math.Log1p(-keep) // log(1-keep)
	pSome := -math.Expm1(float64(m) * lq)
	first := min(m-1, int(math.Log1p(-rng.Float64()*pSome)/lq))
	out = append(out, cands[first])
	for _, c := range cands[first+1:] {
		if rng.Float64() < keep {
			out = append(out, c)
		}
	}
	return out
}

// neighbourDeltas lists the steps to a point's Chebyshev neighbours in z, y, x order.
func neighbourDeltas(dims int) []smart.Offset {
	zr := 0
	if dims == 3 {
		zr = 1
	}
	var ds []smart.Offset
	for z := -zr; z <= zr; z++ {
		for y := -1; y <= 1; y++ {
			for x := -1; x <= 1; x++ {
				if x != 0 || y != 0 || z != 0 {
					ds = append(ds, smart.Offset{x, y, z})
				}
			}
		}
	}
	return ds
}

// Spec names a reproducible family of random stencils: stencil i of a Spec is the same on every
// run and machine, and does not depend on how many others are drawn.
type Spec struct {
	Dims, Order int
	Keep        float64 // probability of keeping a candidate; 0 means DefaultKeep
	Seed        uint64
}

func (sp Spec) keep() float64 {
	if sp.Keep == 0 {
		return DefaultKeep
	}
	return sp.Keep
}

// Name is the name of stencil i, e.g. "rand3d-o2-s1-0000"; names of one Spec sort in index order
// up to index 9999.
func (sp Spec) Name(i int) string {
	name := fmt.Sprintf("rand%dd-o%d-s%d-%04d", sp.Dims, sp.Order, sp.Seed, i)
	if sp.keep() != DefaultKeep {
		name += "-k" + strconv.FormatFloat(sp.keep(), 'g', -1, 64)
	}
	return name
}

// Stencil draws stencil i of the spec with Random, seeding a PCG generator with (Seed, i). It has
// the default grid and steps, float64 elements and coefficients from smart.DeriveCoefficients;
// its name (Name) records the generator, seed and index.
func (sp Spec) Stencil(i int) (*smart.Stencil, error) {
	if i < 0 {
		return nil, fmt.Errorf("random stencil: index %d is negative", i)
	}
	offs, err := Random(rand.New(rand.NewPCG(sp.Seed, uint64(i))), sp.Dims, sp.Order, sp.keep())
	if err != nil {
		return nil, err
	}
	return smart.NewStencil(sp.Name(i), sp.Dims, offs, nil, limitsFor(sp.Order))
}

// limitsFor returns the loosest limits a stencil of the given order needs.
func limitsFor(order int) smart.Limits {
	return smart.Limits{MaxOrder: max(order, smart.DefaultMaxOrder)}
}
