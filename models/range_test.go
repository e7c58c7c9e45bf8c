package models_test

import (
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/generator/generatortest"
	"smart/models"
)

func TestRangeOutside(t *testing.T) {
	r := models.Range{Orders: [2]int{1, 4}, Dtypes: []smart.Dtype{smart.Float64}, Grids: [][3]int{{128, 128, 128}, {512, 512, 512}}}
	cases := []struct {
		order int
		dtype smart.Dtype
		grid  [3]int
		want  []string
	}{
		{1, smart.Float64, [3]int{256, 256, 256}, nil},
		{4, smart.Float64, [3]int{128, 512, 256}, nil}, // every extent inside, though no grid has this shape
		{1, smart.Float32, [3]int{512, 512, 512}, []string{"element type float32"}},
		{1, smart.Float64, [3]int{64, 64, 64}, []string{"grid of 262144 points is outside the trained 128x128x128 to 512x512x512"}},
		{5, smart.Float64, [3]int{1024, 512, 512}, []string{"order 5 is outside the trained orders 1-4", "grid of 268435456 points"}},
		// The points of 256^3 in the shape of no trained grid.
		{1, smart.Float64, [3]int{1048576, 4, 4}, []string{"grid 1048576x4x4 has the points of the trained grids but not their shape: x extent 1048576 is outside the trained 128-512, y extent 4 is outside the trained 128-512, z extent 4"}},
	}
	for _, c := range cases {
		st := generatortest.Named(t, "star", 3, c.order, c.grid)
		st.Dtype = c.dtype
		got := r.Outside(st)
		if len(got) != len(c.want) {
			t.Errorf("order %d %s %v: got %q, want %d problems", c.order, c.dtype, c.grid, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("got %q, want it to say %q", got[i], w)
			}
		}
	}
}

// TestRangeOutsideNamesTrainedGrids: the trained grids are written as they are, whatever the
// stencil asked about (a 2-D stencil against a 3-D model's grids).
func TestRangeOutsideNamesTrainedGrids(t *testing.T) {
	r := models.Range{Orders: [2]int{1, 4}, Grids: [][3]int{{128, 128, 128}, {512, 512, 512}}}
	st := generatortest.Named(t, "star", 2, 1, [3]int{64, 64, 1})
	if got := r.Outside(st); len(got) != 1 || !strings.Contains(got[0], "the trained 128x128x128 to 512x512x512") {
		t.Errorf("a 2-D stencil: %q", got)
	}
}

func TestRangeOf(t *testing.T) {
	a := generatortest.Named(t, "star", 3, 2, [3]int{256, 256, 256})
	b := generatortest.Named(t, "box", 3, 1, [3]int{512, 512, 512})
	b.Dtype, b.Steps = smart.Float32, a.Steps+3
	r := models.RangeOf([]*smart.Stencil{b, a, a}, []string{"H100-SXM", "A100-40GB", "H100-SXM"})
	want := models.Range{Stencils: 3, Orders: [2]int{1, 2}, Dtypes: []smart.Dtype{smart.Float32, smart.Float64},
		Grids: [][3]int{{256, 256, 256}, {512, 512, 512}}, Steps: a.Steps + 3, GPUs: []string{"H100-SXM", "A100-40GB"}}
	if r.Stencils != want.Stencils || r.Orders != want.Orders || !slices.Equal(r.Dtypes, want.Dtypes) ||
		!slices.Equal(r.Grids, want.Grids) || r.Steps != want.Steps || !slices.Equal(r.GPUs, want.GPUs) {
		t.Errorf("RangeOf = %+v, want %+v", r, want)
	}
	// Every stencil it was built from lies inside it.
	for _, st := range []*smart.Stencil{a, b} {
		if out := r.Outside(st); out != nil {
			t.Errorf("%s lies outside the range built from it: %q", st.Name, out)
		}
	}
}
