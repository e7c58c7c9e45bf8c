package features

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/generator"
)

func named(t *testing.T, name string, dims, order int) *smart.Stencil {
	t.Helper()
	s, err := generator.NamedStencil(name, dims, order)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStencilNames(t *testing.T) {
	want := []string{"dims", "bytes_per_elem", "order", "nnz", "sparsity",
		"nnz_o1", "nnz_o2", "nnz_o3", "nnz_o4",
		"nnz_ratio_o1", "nnz_ratio_o2", "nnz_ratio_o3", "nnz_ratio_o4",
		"min_x", "max_x", "min_y", "max_y", "min_z", "max_z",
		"axis_px", "axis_nx", "axis_py", "axis_ny", "axis_pz", "axis_nz",
		"diag_face", "diag_body", "flops", "sym_x", "sym_y", "sym_z", "sym_point",
		"log2_grid_x", "log2_grid_y", "log2_grid_z"}
	if got := StencilNames(0); !reflect.DeepEqual(got, want) {
		t.Errorf("StencilNames(0) =\n%v\nwant\n%v", got, want)
	}
	if got := StencilNames(6); len(got) != len(want)+4 || got[10] != "nnz_o6" {
		t.Errorf("StencilNames(6) = %v", got)
	}
	if StencilNames(9) != nil || TensorShape(3, -1) != nil {
		t.Error("an unsupported maximum order gave a schema")
	}
}

// Golden vectors worked out by hand from the shapes' definitions (R = 4).
func TestStencilGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *smart.Stencil
		want []float64
	}{
		{"j2d5pt", named(t, "j2d5pt", 0, 0), []float64{
			2, 8, 1, 5, 5.0 / 81,
			4, 0, 0, 0, 4.0 / 8, 0, 0, 0,
			-1, 1, -1, 1, 0, 0,
			1, 1, 1, 1, 0, 0,
			0, 0, 9, 1, 1, 1, 1,
			13, 13, 0}},
		{"j3d7pt", named(t, "j3d7pt", 0, 0), []float64{
			3, 8, 1, 7, 7.0 / 729,
			6, 0, 0, 0, 6.0 / 26, 0, 0, 0,
			-1, 1, -1, 1, -1, 1,
			1, 1, 1, 1, 1, 1,
			0, 0, 13, 1, 1, 1, 1,
			9, 9, 9}},
		{"j3d27pt", named(t, "j3d27pt", 0, 0), []float64{
			3, 8, 1, 27, 27.0 / 729,
			26, 0, 0, 0, 1, 0, 0, 0,
			-1, 1, -1, 1, -1, 1,
			1, 1, 1, 1, 1, 1,
			12, 8, 53, 1, 1, 1, 1,
			9, 9, 9}},
		{"box2d-o2", named(t, "box", 2, 2), []float64{
			2, 8, 2, 25, 25.0 / 81,
			8, 16, 0, 0, 1, 1, 0, 0,
			-2, 2, -2, 2, 0, 0,
			2, 2, 2, 2, 0, 0,
			8, 0, 49, 1, 1, 1, 1,
			13, 13, 0}},
	} {
		got, err := Stencil(tc.s, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			names := StencilNames(0)
			for i := range got {
				if i >= len(tc.want) || got[i] != tc.want[i] {
					t.Errorf("%s: %s = %v, want %v", tc.name, names[i], got[i], tc.want[min(i, len(tc.want)-1)])
				}
			}
		}
	}
}

// An asymmetric float32 stencil on a small grid exercises the direction-dependent entries.
func TestStencilAsymmetric(t *testing.T) {
	offs := []smart.Offset{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 2, 0}, {-3, 3, 0}}
	s, err := smart.NewStencil("odd", 2, offs, nil, smart.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	s.Dtype, s.Grid = smart.Float32, [3]int{64, 1024, 1}
	got, err := Stencil(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{
		2, 4, 3, 5, 5.0 / 81,
		2, 1, 1, 0, 2.0 / 8, 1.0 / 16, 1.0 / 24, 0,
		-3, 1, 0, 3, 0, 0,
		1, 0, 1, 0, 0, 0,
		2, 0, 9, 0, 0, 1, 0,
		6, 10, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

func TestTensor(t *testing.T) {
	t2, err := Tensor(named(t, "j2d5pt", 0, 0), 0)
	if err != nil {
		t.Fatal(err)
	}
	// Rows of 9: y = -4..4, x = -4..4; the centre is row 4, column 4.
	want := make([]float64, 81)
	for _, i := range []int{31, 39, 40, 41, 49} {
		want[i] = 1
	}
	if !reflect.DeepEqual(t2, want) {
		t.Errorf("j2d5pt tensor ones at %v", ones(t2))
	}
	t3, _ := Tensor(named(t, "j3d7pt", 0, 0), 0)
	if got := ones(t3); !reflect.DeepEqual(got, []int{283, 355, 363, 364, 365, 373, 445}) || len(t3) != 729 {
		t.Errorf("j3d7pt tensor of %d values, ones at %v", len(t3), got)
	}
	// With R = 1 a 3x3x3 box fills the tensor.
	t1, _ := Tensor(named(t, "j3d27pt", 0, 0), 1)
	if len(t1) != 27 || len(ones(t1)) != 27 {
		t.Errorf("j3d27pt at R = 1: %v", t1)
	}
	if got := TensorShape(3, 0); !reflect.DeepEqual(got, []int{9, 9, 9}) {
		t.Errorf("TensorShape(3, 0) = %v", got)
	}
	if got := TensorShape(2, 2); !reflect.DeepEqual(got, []int{5, 5}) {
		t.Errorf("TensorShape(2, 2) = %v", got)
	}
}

func ones(v []float64) []int {
	var idx []int
	for i, x := range v {
		if x == 1 {
			idx = append(idx, i)
		} else if x != 0 {
			return []int{-1}
		}
	}
	return idx
}

// Properties over random stencils: the tensor holds nnz ones, the per-order counts add up to
// nnz - 1, the ratios are within [0, 1] and sparsity is nnz over the tensor size.
func TestRandomStencilProperties(t *testing.T) {
	names := StencilNames(0)
	at := func(n string) int { return slices.Index(names, n) }
	for seed := range uint64(30) {
		for _, dims := range []int{2, 3} {
			offs, err := generator.Random(rand.New(rand.NewPCG(seed, 3)), dims, 1+int(seed%4), 0.4)
			if err != nil {
				t.Fatal(err)
			}
			s, err := smart.NewStencil("r", dims, offs, nil, smart.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			v, _ := Stencil(s, 0)
			tn, _ := Tensor(s, 0)
			if len(v) != len(names) {
				t.Fatalf("%d values for %d names", len(v), len(names))
			}
			nnz := v[at("nnz")]
			if len(ones(tn)) != int(nnz) || nnz != float64(len(offs)) {
				t.Errorf("tensor has %d ones, nnz %v, %d offsets", len(ones(tn)), nnz, len(offs))
			}
			sum := 0.0
			for n := 1; n <= 4; n++ {
				sum += v[at("nnz_o"+string(rune('0'+n)))]
				if r := v[at("nnz_ratio_o"+string(rune('0'+n)))]; r < 0 || r > 1 {
					t.Errorf("ratio of order %d is %v", n, r)
				}
			}
			if sum != nnz-1 || v[at("order")] != float64(s.Order()) || v[at("sparsity")] != nnz/float64(len(tn)) {
				t.Errorf("per-order sum %v, nnz %v, order %v, sparsity %v", sum, nnz, v[at("order")], v[at("sparsity")])
			}
		}
	}
}

func TestStencilErrors(t *testing.T) {
	big := named(t, "star", 3, 6)
	for _, r := range []int{0, 5} {
		if _, err := Stencil(big, r); err == nil || !strings.Contains(err.Error(), "order 6, beyond the maximum order") {
			t.Errorf("R=%d: error %v", r, err)
		}
		if _, err := Tensor(big, r); err == nil {
			t.Errorf("R=%d: tensor of an order-6 stencil", r)
		}
	}
	if _, err := Stencil(big, 9); err == nil || !strings.Contains(err.Error(), "choose 1 to 8") {
		t.Errorf("R=9: error %v", err)
	}
	if v, err := Stencil(big, 6); err != nil || len(v) != len(StencilNames(6)) {
		t.Errorf("R=6: %v, %d values", err, len(v))
	}
}

func BenchmarkRandomAndFeatures(b *testing.B) {
	const n = 1000
	for b.Loop() {
		for i := range n {
			s, err := generator.Spec{Dims: 3, Order: 4, Seed: 1}.Stencil(i)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Stencil(s, 0); err != nil {
				b.Fatal(err)
			}
			if _, err := Tensor(s, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/1000stencils")
}
