package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"smart"
)

// Textbook point counts of the shape families.
func TestFamilyCounts(t *testing.T) {
	pow := func(b, e int) int {
		r := 1
		for range e {
			r *= b
		}
		return r
	}
	count := map[string]func(d, r int) int{
		"star":  func(d, r int) int { return 2*d*r + 1 },
		"box":   func(d, r int) int { return pow(2*r+1, d) },
		"cross": func(d, r int) int { return pow(2, d)*r + 1 },
		"diamond": func(d, r int) int { // centred square and octahedral numbers
			if d == 2 {
				return 2*r*r + 2*r + 1
			}
			return (2*r + 1) * (2*r*r + 2*r + 3) / 3
		},
	}
	for name, want := range count {
		for _, d := range []int{2, 3} {
			for r := 1; r <= 4; r++ {
				offs, err := Named(name, d, r)
				if err != nil {
					t.Fatal(err)
				}
				if len(offs) != want(d, r) {
					t.Errorf("%s %d-D order %d has %d points, want %d", name, d, r, len(offs), want(d, r))
				}
				checkShape(t, name, offs, d, r)
			}
		}
	}
}

// checkShape asserts what every named shape satisfies: the centre, the exact order, no
// duplicates, mirror symmetry on every axis, no z in 2-D and z, y, x order.
func checkShape(t *testing.T, name string, offs []smart.Offset, dims, order int) {
	t.Helper()
	set := map[smart.Offset]bool{}
	got := 0
	for _, o := range offs {
		if set[o] {
			t.Fatalf("%s: %v twice", name, o)
		}
		set[o] = true
		got = max(got, o.Chebyshev())
		if dims == 2 && o[2] != 0 {
			t.Fatalf("%s: 2-D shape has %v", name, o)
		}
	}
	if !set[smart.Offset{}] {
		t.Errorf("%s: no centre", name)
	}
	if got != order {
		t.Errorf("%s: order %d, want %d", name, got, order)
	}
	for o := range set {
		for a := range 3 {
			m := o
			m[a] = -m[a]
			if !set[m] {
				t.Errorf("%s: has %v but not its mirror %v", name, o, m)
			}
		}
	}
	if !reflect.DeepEqual(offs, smart.SortedOffsets(offs)) {
		t.Errorf("%s: offsets not in z, y, x order", name)
	}
}

func TestClassics(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dims, order int
		points      int
		sameAs      string // a family shape with the same points, "" if none
	}{
		{"j2d5pt", 2, 1, 5, "star"},
		{"j2d9pt", 2, 2, 9, "star"},
		{"j2d9pt-gol", 2, 1, 9, "box"},
		{"j2d13pt", 2, 3, 13, "star"},
		{"j2d17pt", 2, 4, 17, "star"},
		{"j2d25pt", 2, 2, 25, "box"},
		{"j3d7pt", 3, 1, 7, "star"},
		{"j3d13pt", 3, 2, 13, "star"},
		{"j3d19pt", 3, 1, 19, ""},
		{"j3d25pt", 3, 4, 25, "star"},
		{"j3d27pt", 3, 1, 27, "box"},
		{"j3d125pt", 3, 2, 125, "box"},
	} {
		offs, err := Named(tc.name, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(offs) != tc.points {
			t.Errorf("%s has %d points, want %d", tc.name, len(offs), tc.points)
		}
		checkShape(t, tc.name, offs, tc.dims, tc.order)
		if tc.sameAs != "" {
			fam, _ := Named(tc.sameAs, tc.dims, tc.order)
			if !reflect.DeepEqual(offs, fam) {
				t.Errorf("%s differs from %s of order %d", tc.name, tc.sameAs, tc.order)
			}
		}
		s, err := NamedStencil(tc.name, tc.dims, tc.order) // explicit matching dims and order are fine
		if err != nil {
			t.Fatal(err)
		}
		if s.Name != tc.name || s.Dims != tc.dims || s.Order() != tc.order || s.Grid != smart.DefaultGrid(tc.dims) {
			t.Errorf("%s: stencil %s %d-D order %d grid %v", tc.name, s.Name, s.Dims, s.Order(), s.Grid)
		}
	}
	// j3d19pt: the 3x3x3 box less its 8 corners.
	offs, _ := Named("j3d19pt", 0, 0)
	for _, o := range offs {
		if o[0] != 0 && o[1] != 0 && o[2] != 0 {
			t.Errorf("j3d19pt has corner %v", o)
		}
	}
	// Every classic is listed and documented.
	for _, sh := range Shapes() {
		if sh.Doc == "" {
			t.Errorf("shape %s has no description", sh.Name)
		}
		if !sh.Family() && !strings.HasPrefix(sh.Name, fmt.Sprintf("j%dd", sh.Dims)) {
			t.Errorf("classic %s is %d-D", sh.Name, sh.Dims)
		}
	}
}

func TestCrossIsDiagonal(t *testing.T) {
	offs, _ := Named("cross", 2, 2)
	want := []smart.Offset{{-2, -2, 0}, {2, -2, 0}, {-1, -1, 0}, {1, -1, 0}, {0, 0, 0}, {-1, 1, 0}, {1, 1, 0}, {-2, 2, 0}, {2, 2, 0}}
	if !reflect.DeepEqual(offs, want) {
		t.Errorf("cross 2-D order 2 = %v, want %v", offs, want)
	}
}

func TestNamedErrors(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dims, order int
		want        string
	}{
		{"hexagon", 2, 1, `unknown shape "hexagon"; the shapes are star, box, cross, diamond, j2d5pt`},
		{"j3d7pt", 2, 0, "shape j3d7pt is 3-D of order 1"},
		{"j3d7pt", 0, 2, "shape j3d7pt is 3-D of order 1"},
		{"box", 0, 2, "dims is 0"},
		{"box", 3, 0, "order is 0"},
		{"star", 2, 9, "order is 9"},
	} {
		_, err := Named(tc.name, tc.dims, tc.order)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Named(%q, %d, %d) error %v, want one containing %q", tc.name, tc.dims, tc.order, err, tc.want)
		}
	}
	if _, err := Named("J3D7PT", 0, 0); err != nil {
		t.Errorf("names are case-insensitive: %v", err)
	}
}

func TestFamilyStencilNamesAndLimits(t *testing.T) {
	s, err := NamedStencil("diamond", 3, 6) // beyond the default maximum order 4
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "diamond3d-o6" || s.Order() != 6 {
		t.Errorf("got %s of order %d", s.Name, s.Order())
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	var stencils []*smart.Stencil
	for _, name := range ShapeNames() {
		s, err := NamedStencil(name, 3, 2)
		if err != nil {
			s, err = NamedStencil(name, 0, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		stencils = append(stencils, s)
	}
	r, _ := Spec{Dims: 3, Order: 4, Seed: 9}.Stencil(0)
	odd, _ := NamedStencil("j2d5pt", 0, 0)
	odd.Name = `tricky [1,2] "quoted" \ name`
	odd.Points[0].Coef = -1.5e-300
	stencils = append(stencils, r, odd)
	for _, s := range stencils {
		b, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := smart.ParseStencil(b, smart.Limits{MaxOrder: smart.MaxMaxOrder})
		if err != nil {
			t.Fatalf("%s: %v\n%s", s.Name, err, b)
		}
		if !reflect.DeepEqual(back, s) {
			t.Errorf("%s: round trip changed the stencil", s.Name)
		}
		// One offset per line: the line count is the fields, offsets and coefficients.
		if lines := strings.Count(string(b), "\n"); lines != 12+2*s.NNZ() {
			t.Errorf("%s: %d lines, want %d", s.Name, lines, 12+2*s.NNZ())
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j3d7pt.json")
	s, _ := NamedStencil("j3d7pt", 0, 0)
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := Marshal(s); !slices.Equal(b, want) {
		t.Error("file content differs from Marshal")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.json"), s); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("writing into a missing directory: %v", err)
	}
}
