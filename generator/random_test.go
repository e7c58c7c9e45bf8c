package generator

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

// isNeighbour reports whether a and b are at Chebyshev distance 1.
func isNeighbour(a, b smart.Offset) bool {
	d := smart.Offset{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
	return d.Chebyshev() == 1
}

// checkAlgorithm1 asserts the properties Algorithm 1 guarantees.
func checkAlgorithm1(t *testing.T, offs []smart.Offset, dims, order int) {
	t.Helper()
	byOrder := make([][]smart.Offset, order+1)
	seen := map[smart.Offset]bool{}
	for _, o := range offs {
		if seen[o] {
			t.Fatalf("offset %v appears twice in %v", o, offs)
		}
		seen[o] = true
		if dims == 2 && o[2] != 0 {
			t.Fatalf("2-D stencil has offset %v with z != 0", o)
		}
		n := o.Chebyshev()
		if n > order {
			t.Fatalf("offset %v has order %d beyond the requested %d", o, n, order)
		}
		byOrder[n] = append(byOrder[n], o)
	}
	if len(byOrder[0]) != 1 {
		t.Fatalf("centre missing from %v", offs)
	}
	for n := 1; n <= order; n++ {
		if len(byOrder[n]) == 0 {
			t.Fatalf("no point of order %d in %v; the order must be exactly %d", n, offs, order)
		}
		if n == 1 {
			continue
		}
		for _, o := range byOrder[n] {
			if !slices.ContainsFunc(byOrder[n-1], func(p smart.Offset) bool { return isNeighbour(o, p) }) {
				t.Fatalf("offset %v of order %d is not a neighbour of any selected point of order %d (%v)", o, n, n-1, byOrder[n-1])
			}
		}
	}
}

func TestRandomProperties(t *testing.T) {
	for _, tc := range []struct {
		dims, order int
		keep        float64
	}{
		{2, 1, 0.5}, {2, 2, 0.5}, {2, 4, 0.5}, {2, 8, 0.5}, {2, 4, 0.05},
		{3, 1, 0.5}, {3, 2, 0.5}, {3, 4, 0.5}, {3, 6, 0.2}, {3, 4, 0.01}, {3, 3, 1},
	} {
		for seed := range uint64(40) {
			offs, err := Random(rand.New(rand.NewPCG(seed, 7)), tc.dims, tc.order, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			checkAlgorithm1(t, offs, tc.dims, tc.order)
			if !slices.IsSortedFunc(offs[1:], func(a, b smart.Offset) int {
				if c := a.Chebyshev() - b.Chebyshev(); c != 0 {
					return c
				}
				return compareZYX(a, b)
			}) {
				t.Fatalf("offsets not in order-then-z,y,x order: %v", offs)
			}
		}
	}
}

// With keep = 1 every candidate is kept, so order n reaches every point of the box.
func TestRandomKeepAllIsBox(t *testing.T) {
	for _, dims := range []int{2, 3} {
		for order := 1; order <= 4; order++ {
			got, err := Random(rand.New(rand.NewPCG(1, 2)), dims, order, 1)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := Named("box", dims, order)
			if !sameSet(got, want) {
				t.Errorf("dims %d order %d with keep 1: %d points, want the %d of the box", dims, order, len(got), len(want))
			}
		}
	}
}

func sameSet(a, b []smart.Offset) bool {
	return reflect.DeepEqual(smart.SortedOffsets(a), smart.SortedOffsets(b))
}

// The order-1 draw keeps each of the m candidates with probability keep, redrawn when empty:
// the count is Binomial(m, keep) conditioned on > 0, with mean m*keep / (1 - (1-keep)^m), and
// each candidate's marginal is keep / (1 - (1-keep)^m).
func TestRandomDistribution(t *testing.T) {
	const draws = 20000
	for _, tc := range []struct {
		dims int
		keep float64
	}{{2, 0.25}, {3, 0.1}, {2, 0.5}} {
		m := 8
		if tc.dims == 3 {
			m = 26
		}
		norm := 1 - pow(1-tc.keep, m)
		rng := rand.New(rand.NewPCG(42, 0))
		hits := map[smart.Offset]int{}
		total := 0
		for range draws {
			offs, err := Random(rng, tc.dims, 1, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			total += len(offs) - 1
			for _, o := range offs[1:] {
				hits[o]++
			}
		}
		mean := float64(total) / draws
		wantMean := float64(m) * tc.keep / norm
		// The standard error of the mean is below sqrt(m/4/draws) = 0.018 for m = 26; allow 6 of them.
		if d := mean - wantMean; d > 0.11 || d < -0.11 {
			t.Errorf("dims %d keep %v: mean order-1 count %.3f, want %.3f", tc.dims, tc.keep, mean, wantMean)
		}
		if len(hits) != m {
			t.Errorf("dims %d keep %v: %d distinct order-1 points drawn, want all %d", tc.dims, tc.keep, len(hits), m)
		}
		wantP := tc.keep / norm
		for o, h := range hits {
			if p := float64(h) / draws; p-wantP > 0.025 || wantP-p > 0.025 {
				t.Errorf("dims %d keep %v: %v kept with frequency %.3f, want %.3f", tc.dims, tc.keep, o, p, wantP)
			}
		}
	}
}

// A keep so small that nothing is ever kept in a round still draws at once: one point per order,
// the rest of Algorithm 1's properties intact.
func TestRandomTinyKeep(t *testing.T) {
	for _, tc := range []struct {
		dims, order int
		keep        float64
	}{{2, 1, 1e-300}, {3, 8, 1e-9}, {2, 8, 5e-324}, {3, 4, 1e-300}} {
		for seed := range uint64(5) {
			offs, err := Random(rand.New(rand.NewPCG(seed, 1)), tc.dims, tc.order, tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			checkAlgorithm1(t, offs, tc.dims, tc.order)
			if len(offs) != 1+tc.order {
				t.Errorf("dims %d order %d keep %v: %d points, want one per order and the centre", tc.dims, tc.order, tc.keep, len(offs))
			}
		}
	}
}

// keepSomeDirect, which keepSome falls back on, has the distribution of the redraws: the
// marginals and mean count of TestRandomDistribution.
func TestKeepSomeDirectDistribution(t *testing.T) {
	const draws = 20000
	for _, tc := range []struct {
		dims int
		keep float64
	}{{2, 0.25}, {3, 0.1}, {2, 0.5}, {3, 0.01}} {
		cands := neighbourDeltas(tc.dims)
		m := len(cands)
		norm := 1 - pow(1-tc.keep, m)
		rng := rand.New(rand.NewPCG(42, 1))
		hits := map[smart.Offset]int{}
		total := 0
		for range draws {
			kept := keepSomeDirect(rng, nil, cands, tc.keep)
			total += len(kept)
			for _, o := range kept {
				hits[o]++
			}
		}
		if mean, want := float64(total)/draws, float64(m)*tc.keep/norm; mean-want > 0.11 || want-mean > 0.11 {
			t.Errorf("dims %d keep %v: mean count %.3f, want %.3f", tc.dims, tc.keep, mean, want)
		}
		wantP := tc.keep / norm
		for _, c := range cands {
			if p := float64(hits[c]) / draws; p-wantP > 0.025 || wantP-p > 0.025 {
				t.Errorf("dims %d keep %v: %v kept with frequency %.3f, want %.3f", tc.dims, tc.keep, c, p, wantP)
			}
		}
	}
}

func pow(x float64, n int) float64 {
	r := 1.0
	for range n {
		r *= x
	}
	return r
}

func TestRandomErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		dims, order int
		keep        float64
		want        string
	}{
		{1, 2, 0.5, "dims is 1"},
		{4, 2, 0.5, "dims is 4"},
		{2, 0, 0.5, "order is 0"},
		{3, 9, 0.5, "order is 9"},
		{3, 2, 0, "keep probability is 0"},
		{3, 2, 1.5, "keep probability is 1.5"},
		{3, 2, -0.1, "keep probability is -0.1"},
	} {
		_, err := Random(rng, tc.dims, tc.order, tc.keep)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Random(%d, %d, %v) error %v, want one containing %q", tc.dims, tc.order, tc.keep, err, tc.want)
		}
	}
}

func TestSpecReproducible(t *testing.T) {
	sp := Spec{Dims: 3, Order: 2, Seed: 1}
	a, err := sp.Stencil(3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sp.Stencil(3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same spec and index gave two different stencils")
	}
	// Different seeds and different indices differ (at order 2 in 3-D a collision is
	// astronomically unlikely).
	ids := map[string]string{}
	for seed := range uint64(10) {
		for i := range 10 {
			s, err := Spec{Dims: 3, Order: 2, Seed: seed}.Stencil(i)
			if err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprint(s.Offsets())
			if prev, dup := ids[key]; dup {
				t.Fatalf("%s and %s have the same pattern", prev, s.Name)
			}
			ids[key] = s.Name
		}
	}
}

// The stream of a Spec is pinned: a data set names its stencils by spec and index, so a change
// in the generator must show here. The counts per order were read off the first run and checked against
// the properties above; the ID pins the exact pattern.
func TestSpecGolden(t *testing.T) {
	for _, tc := range []struct {
		sp       Spec
		i        int
		name     string
		perOrder []int
		id       string
	}{
		{Spec{Dims: 3, Order: 2, Seed: 1}, 0, "rand3d-o2-s1-0000", []int{1, 19, 56}, "f1adb1d0d28ede4c"},
		{Spec{Dims: 2, Order: 4, Seed: 7}, 12, "rand2d-o4-s7-0012", []int{1, 3, 8, 8, 10}, "b6bf06cb605518ea"},
		{Spec{Dims: 3, Order: 1, Seed: 3, Keep: 0.25}, 5, "rand3d-o1-s3-0005-k0.25", []int{1, 8}, "3258634785ba0ce2"},
	} {
		s, err := tc.sp.Stencil(tc.i)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]int, tc.sp.Order+1)
		for _, o := range s.Offsets() {
			got[o.Chebyshev()]++
		}
		if s.Name != tc.name || !reflect.DeepEqual(got, tc.perOrder) || s.ID() != tc.id {
			t.Errorf("%+v.Stencil(%d) = %s with %v points per order, ID %s; want %s with %v, ID %s", tc.sp, tc.i, s.Name, got, s.ID(), tc.name, tc.perOrder, tc.id)
		}
		if s.Dims != tc.sp.Dims || s.Grid != smart.DefaultGrid(tc.sp.Dims) || s.Steps != smart.DefaultSteps || s.Dtype != smart.Float64 {
			t.Errorf("%s: dims %d grid %v steps %d dtype %s; want the defaults", s.Name, s.Dims, s.Grid, s.Steps, s.Dtype)
		}
	}
}

func TestSpecNamesSort(t *testing.T) {
	sp := Spec{Dims: 2, Order: 3, Seed: 12}
	var names []string
	for i := range 1000 {
		names = append(names, sp.Name(i))
	}
	if !slices.IsSorted(names) {
		t.Error("names of one spec do not sort in index order")
	}
	if _, err := sp.Stencil(-1); err == nil {
		t.Error("a negative index was accepted")
	}
}

// compareZYX orders offsets by z, then y, then x: the memory order of a grid.
func compareZYX(a, b smart.Offset) int {
	for axis := 2; axis >= 0; axis-- {
		if a[axis] != b[axis] {
			return a[axis] - b[axis]
		}
	}
	return 0
}
