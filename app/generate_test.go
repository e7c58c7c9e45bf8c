package app

import (
	"errors"
	"path/filepath"
	"testing"

	"smart"
	"smart/generator"
)

// TestGenerate: the stencils and files a Generate names, against the generator drawn by hand.
func TestGenerate(t *testing.T) {
	spec := generator.Spec{Dims: 2, Order: 2, Keep: 0.4, Seed: 7}
	tests := []struct {
		name  string
		g     Generate
		n     int
		want  func(i int) (*smart.Stencil, error) // stencil i before its type, grid and steps
		paths []string
	}{
		{"random from First", Generate{Random: spec, Count: 2, First: 3, Out: "d", Dir: true}, 2,
			func(i int) (*smart.Stencil, error) { return spec.Stencil(3 + i) },
			[]string{filepath.Join("d", spec.Name(3)+".json"), filepath.Join("d", spec.Name(4)+".json")}},
		{"shapes to the stream", Generate{Shapes: []string{" j2d5pt", "box"}, Random: generator.Spec{Dims: 2, Order: 1}, Count: 1, Out: "-"}, 2,
			func(i int) (*smart.Stencil, error) {
				sh, _ := generator.LookupShape([]string{"j2d5pt", "box"}[i])
				return sh.Stencil(2, 1)
			},
			[]string{"", ""}},
		{"one file", Generate{Shapes: []string{"j2d9pt"}, Out: "a.json"}, 1,
			func(int) (*smart.Stencil, error) { return generator.NamedStencil("j2d9pt", 0, 0) },
			[]string{"a.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.g.Dtype, tc.g.Grid, tc.g.Steps = smart.Float32, []int{64, 32}, 7
			if err := tc.g.Check(); err != nil || tc.g.Len() != tc.n {
				t.Fatalf("Check %v, Len %d; want nil, %d", err, tc.g.Len(), tc.n)
			}
			for i := range tc.n {
				got, err := tc.g.Stencil(i)
				if err != nil {
					t.Fatal(err)
				}
				want, err := tc.want(i)
				if err == nil {
					err = generator.Customise(want, smart.Float32, []int{64, 32}, 7)
				}
				gotFile, _ := generator.Marshal(got)
				wantFile, _ := generator.Marshal(want)
				if err != nil || string(gotFile) != string(wantFile) || got.Grid != [3]int{64, 32, 1} {
					t.Errorf("stencil %d:\n%s\nwant (%v)\n%s", i, gotFile, err, wantFile)
				}
				if p := tc.g.Path(got); p != tc.paths[i] {
					t.Errorf("stencil %d goes to %q, want %q", i, p, tc.paths[i])
				}
			}
		})
	}
	var se *SettingError
	if err := (Generate{Shapes: []string{"j2d5pt", "nope"}}).Check(); !errors.As(err, &se) || se.Field != "Shapes" || !se.Wrong {
		t.Errorf("an unknown shape: %v, want a SettingError of Shapes", err)
	}
	var dims *generator.GridDimsError
	if _, err := (Generate{Shapes: []string{"j3d7pt"}, Grid: []int{8, 8}, Dtype: smart.Float64, Steps: 1}).Stencil(0); !errors.As(err, &dims) {
		t.Errorf("a 2-D grid for a 3-D stencil: %v, want a GridDimsError", err)
	}
}
