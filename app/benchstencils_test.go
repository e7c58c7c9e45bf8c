package app

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"smart"
)

// TestBenchReadsStencils: a bench reads its stencil files or draws random stencils, refuses a
// stencil given twice, and simulates the default GPU, saying so, where none is named.
func TestBenchReadsStencils(t *testing.T) {
	for _, tc := range []struct {
		name    string
		bench   Bench
		dims    []int  // of the stencils measured, in increasing order
		refused string // in the error of Open
	}{
		{"files", Bench{Files: []string{"j2d5pt", "j3d7pt"}}, []int{2, 3}, ""},
		{"random", Bench{Random: 3, Dims: 2, MaxOrder: 2}, []int{2, 2, 2}, ""},
		{"a stencil twice", Bench{Files: []string{"j2d5pt", "j2d5pt"}}, nil, "hold the same stencil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes strings.Builder
			b := tc.bench
			b.OCs, b.Samples, b.Seed, b.Backend, b.Notes = []smart.Combination{0}, 1, 1, Sim, &notes
			b.Out = filepath.Join(t.TempDir(), "runs")
			if err := b.Check(); err != nil {
				t.Fatal(err)
			}
			bg, err := b.Open(context.Background())
			if tc.refused != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refused) {
					t.Fatalf("Open: %v; want an error with %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer bg.Close()
			var dims []int
			var ids []string
			for _, it := range bg.Items {
				if !slices.Contains(ids, it.Stencil.ID()) {
					ids, dims = append(ids, it.Stencil.ID()), append(dims, it.Stencil.Dims)
				}
			}
			slices.Sort(dims) // the plan orders the stencils its own way
			if !slices.Equal(dims, tc.dims) || bg.Backend.GPU.Name != DefaultSimGPU {
				t.Errorf("measures stencils of %v dimensions on %s; want %v on %s", dims, bg.Backend.GPU.Name, tc.dims, DefaultSimGPU)
			}
			if want := "simulating the " + DefaultSimGPU + ", as no GPU is named\n"; notes.String() != want {
				t.Errorf("notes %q, want %q", notes.String(), want)
			}
		})
	}
}
