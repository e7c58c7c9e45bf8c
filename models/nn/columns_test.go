package nn

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/features"
)

// TestTensorNames checks that each name of features.TensorNames sits at the index
// features.TensorIndex gives its offset, which is how the columns reach the convolutions.
func TestTensorNames(t *testing.T) {
	for _, dims := range []int{2, 3} {
		for _, r := range []int{1, 2, 4} {
			names := features.TensorNames(dims, r)
			side := 2*r + 1
			want := side * side
			if dims == 3 {
				want *= side
			}
			if len(names) != want {
				t.Fatalf("%d-D order %d: %d names, want %d", dims, r, len(names), want)
			}
			zs := []int{0}
			if dims == 3 {
				zs = nil
				for z := -r; z <= r; z++ {
					zs = append(zs, z)
				}
			}
			for _, z := range zs {
				for y := -r; y <= r; y++ {
					for x := -r; x <= r; x++ {
						name := fmt.Sprintf("tensor_x%d_y%d", x, y)
						if dims == 3 {
							name += fmt.Sprintf("_z%d", z)
						}
						if got := names[features.TensorIndex(dims, r, smart.Offset{x, y, z})]; got != name {
							t.Fatalf("%d-D order %d offset (%d,%d,%d): name %q, want %q", dims, r, x, y, z, got, name)
						}
					}
				}
			}
		}
	}
}

func TestColumnsFor(t *testing.T) {
	stencil := features.StencilNames(4)
	tensor2 := features.TensorNames(2, 4)
	setting := features.SettingNames(3)
	gpu := features.GPUNames()
	schema := slices.Concat(stencil, tensor2, setting, gpu)
	span := func(from, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = from + i
		}
		return s
	}
	tensorCols := span(len(stencil), len(tensor2))
	others := span(len(stencil)+len(tensor2), len(setting)+len(gpu))
	nonTensor := append(span(0, len(stencil)), others...)

	swapped := slices.Clone(schema)
	swapped[len(stencil)], swapped[len(stencil)+1] = swapped[len(stencil)+1], swapped[len(stencil)]

	tests := []struct {
		kind           string
		names          []string
		tensor, vector []int
		channels, side int
		want           string // error substring
	}{
		{KindConvNet, schema, tensorCols, others, 1, 9, ""},
		{KindConvMLP, schema, tensorCols, others, 1, 9, ""},
		{KindFcNet, schema, nil, nonTensor, 0, 0, ""},
		{KindMLP, schema, nil, nonTensor, 0, 0, ""},
		{KindConvNet, features.TensorNames(3, 2), span(0, 125), nil, 5, 5, ""},
		{KindConvNet, slices.Concat(stencil, gpu), nil, nil, 0, 0, "no stencil tensor"},
		{KindConvMLP, slices.Concat(stencil, tensor2), nil, nil, 0, 0, "no setting or GPU columns"},
		{KindMLP, tensor2, nil, nil, 0, 0, "no columns besides the tensor"},
		{KindConvNet, swapped, nil, nil, 0, 0, "in the order of features.TensorNames"},
		{KindConvNet, tensor2[:50], nil, nil, 0, 0, "50 tensor columns"},
	}
	for _, tc := range tests {
		c, err := columnsFor(tc.kind, tc.names)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: got %v, want an error containing %q", tc.kind, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.kind, err)
			continue
		}
		if !slices.Equal(c.tensor, tc.tensor) || !slices.Equal(c.vector, tc.vector) || c.channels != tc.channels || c.side != tc.side {
			t.Errorf("%s: got tensor %v vector %v %dx%d, want tensor %v vector %v %dx%d",
				tc.kind, c.tensor, c.vector, c.channels, c.side, tc.tensor, tc.vector, tc.channels, tc.side)
		}
	}
}
