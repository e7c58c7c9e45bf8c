package app

import (
	"errors"
	"math"
	"os"
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
			[]string{filepath.Join("d", spec.Name(3)+"-f32.json"), filepath.Join("d", spec.Name(4)+"-f32.json")}},
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
					want.Name += "-f32" // a float32 stencil's name says so
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

func TestGenerateCheck(t *testing.T) {
	random := generator.Spec{Dims: 2, Order: 1}
	for _, tc := range []struct {
		name  string
		g     Generate
		field string
	}{
		{"random", Generate{Random: random, Count: 3, First: 2}, ""},
		{"no random stencils", Generate{Random: random}, "Count"},
		{"negative first", Generate{Random: random, Count: 1, First: -1}, "First"},
		{"the most stencils", Generate{Random: random, Count: MaxGenerate}, ""},
		{"too many stencils", Generate{Random: random, Count: MaxGenerate + 1}, "Count"},
		{"too many to allocate", Generate{Random: random, Count: 9_000_000_000_000_000_000}, "Count"},
		{"last index the largest", Generate{Random: random, Count: 2, First: math.MaxInt - 1}, ""},
		{"last index past the largest", Generate{Random: random, Count: 2, First: math.MaxInt}, "First"},
		{"last index far past the largest", Generate{Random: random, Count: MaxGenerate, First: math.MaxInt - 5}, "First"},
		{"shapes read no count", Generate{Shapes: []string{"j2d5pt"}, First: -1}, ""},
		{"unknown shape", Generate{Shapes: []string{"j2d5pt", "nope"}}, "Shapes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := refusedField(t, tc.g.Check()); got != tc.field {
				t.Errorf("Check refused %q, want %q", got, tc.field)
			}
		})
	}
}

// TestGeneratePrepare: where the stencils go, and an Out that cannot take them.
func TestGeneratePrepare(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	two := []string{"j2d5pt", "j2d9pt"}
	for _, tc := range []struct {
		name   string
		g      Generate
		dir    bool
		field  string // of the SettingError; "" for none
		failed bool   // an error that is no SettingError
	}{
		{"one to the stream", Generate{Shapes: two[:1], Out: "-"}, false, "", false},
		{"two to the stream", Generate{Shapes: two, Out: "-"}, false, "Out", false},
		{"one to a file", Generate{Shapes: two[:1], Out: filepath.Join(dir, "a.json")}, false, "", false},
		{"two to a .json file", Generate{Shapes: two, Out: filepath.Join(dir, "b.json")}, false, "Out", false},
		{"one to a .JSON file", Generate{Shapes: two[:1], Out: filepath.Join(dir, "C.JSON")}, false, "", false},
		{"two to a new directory", Generate{Shapes: two, Out: filepath.Join(dir, "new")}, true, "", false},
		{"one to a separator", Generate{Shapes: two[:1], Out: filepath.Join(dir, "sep") + "/"}, true, "", false},
		{"one to an existing directory", Generate{Shapes: two[:1], Out: dir}, true, "", false},
		{"two under a file", Generate{Shapes: two, Out: filepath.Join(file, "d")}, true, "", true},
		{"one to a new name without .json", Generate{Shapes: two[:1], Out: filepath.Join(dir, "stencils")}, true, "", false},
		{"one to an existing file", Generate{Shapes: two[:1], Out: file}, false, "", false},
		{"two to an existing file", Generate{Shapes: two, Out: file}, false, "Out", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Prepare()
			var se *SettingError
			switch {
			case tc.failed && (err == nil || errors.As(err, &se)):
				t.Fatalf("Prepare: %v; want a failure to make the directory", err)
			case !tc.failed && refusedField(t, err) != tc.field:
				t.Fatalf("Prepare: %v; want a refusal of %q", err, tc.field)
			case err != nil:
				return
			}
			if tc.g.Dir != tc.dir {
				t.Errorf("Dir is %v, want %v", tc.g.Dir, tc.dir)
			}
			if st, err := os.Stat(tc.g.Out); tc.dir && (err != nil || !st.IsDir()) {
				t.Errorf("the directory %s was not made: %v", tc.g.Out, err)
			}
		})
	}
}
