package app

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"smart"
	"smart/generator"
	"smart/internal/atomicfile"
)

// Generate is what a run of the stencil generator writes: Count random stencils of Random
// from index First, or the named Shapes (the families of dimensions Random.Dims and order
// Random.Order), each given Dtype, Grid and Steps, and the files they go to.
type Generate struct {
	Shapes []string       // named shapes (generator.Shapes); empty: random stencils
	Random generator.Spec // the random stencils; with Shapes, only Dims and Order count
	Count  int            // random stencils
	First  int            // index of the first random stencil, to extend a set
	Dtype  smart.Dtype
	Grid   []int // extents; nil: each stencil's default grid
	Steps  int
	Out    string // a file, a directory where Dir, or "-" for the stream
	Dir    bool
}

// MaxGenerate is the most random stencils one Generate writes: a million files of a few hundred
// bytes each, drawn in about a minute. A larger set is written in parts, each from the index the
// last one ended at (First), which draws the same stencils as one call would.
const MaxGenerate = 1_000_000

// Check refuses a count or first index of random stencils out of range (a count over
// MaxGenerate, or a last index, First+Count-1, past the largest int) and shapes that name none,
// each as a *SettingError of its field.
func (g Generate) Check() error {
	switch {
	case len(g.Shapes) > 0:
	case g.Count < 1:
		return wrong("Count", fmt.Sprint(g.Count), "give at least 1")
	case g.Count > MaxGenerate:
		return wrong("Count", fmt.Sprint(g.Count), "at most %d stencils are written at a time; write a larger set in parts of up to %d, each starting from the index the last one ended at, which draws the same stencils", MaxGenerate, MaxGenerate)
	case g.First < 0:
		return wrong("First", fmt.Sprint(g.First), "give 0 or more")
	case g.First > math.MaxInt-(g.Count-1):
		return wrong("First", fmt.Sprint(g.First), "the last of %d stencils from it would be past index %d, the largest; give at most %d", g.Count, math.MaxInt, math.MaxInt-(g.Count-1))
	}
	seen := map[string]bool{}
	for _, name := range g.Shapes {
		sh, err := generator.LookupShape(strings.TrimSpace(name))
		if err != nil {
			return &SettingError{Field: "Shapes", Err: err, Wrong: true}
		}
		if seen[sh.Name] {
			return wrong("Shapes", strings.Join(g.Shapes, ","), "%s is given twice; each shape is written once", strings.TrimSpace(name))
		}
		seen[sh.Name] = true
	}
	return nil
}

// Prepare decides whether Out is a directory (Dir) and makes it: Out is one where it exists as
// one, ends in a separator, or is neither an existing file nor a name ending in .json, so that
// --out stencils is a directory whether one stencil or several are written. An Out that cannot
// take Len stencils is a *SettingError of Out.
func (g *Generate) Prepare() error {
	n := g.Len()
	if g.Out == "-" {
		if n > 1 {
			return wrong("Out", "-", "%d stencils cannot go to standard output; name a directory", n)
		}
		return nil
	}
	st, err := os.Stat(g.Out) // a name ending in a separator is no file: Stat fails or finds a directory
	g.Dir = err == nil && st.IsDir() || err != nil && !strings.EqualFold(filepath.Ext(g.Out), ".json")
	if !g.Dir && n > 1 {
		return wrong("Out", g.Out, "is a file, but %d stencils need a directory", n)
	}
	if !g.Dir {
		return nil
	}
	if err := atomicfile.CheckDir(g.Out); err != nil {
		return err
	}
	if err := os.MkdirAll(g.Out, 0o755); err != nil {
		return fmt.Errorf("creating the output directory: %w", err)
	}
	return nil
}

// Len is the number of stencils to write.
func (g Generate) Len() int {
	if len(g.Shapes) > 0 {
		return len(g.Shapes)
	}
	return g.Count
}

// Stencil draws stencil i of Len and gives it the type, grid and steps; a grid of other
// dimensions is a *generator.GridDimsError.
func (g Generate) Stencil(i int) (*smart.Stencil, error) {
	var s *smart.Stencil
	var err error
	if len(g.Shapes) == 0 {
		s, err = g.Random.Stencil(g.First + i)
	} else {
		var sh generator.Shape
		if sh, err = generator.LookupShape(strings.TrimSpace(g.Shapes[i])); err == nil {
			s, err = sh.Stencil(g.Random.Dims, g.Random.Order)
		}
	}
	if err != nil {
		return nil, err
	}
	if g.Dtype == smart.Float32 {
		// As the campaign names its float32 stencils: a float32 set and a float64 one of the
		// same draws can share a directory.
		s.Name += "-f32"
	}
	return s, generator.Customise(s, g.Dtype, g.Grid, g.Steps)
}

// Path is the file stencil s goes to: "" for the stream.
func (g Generate) Path(s *smart.Stencil) string {
	switch {
	case g.Out == "-":
		return ""
	case g.Dir:
		return filepath.Join(g.Out, s.Name+".json")
	}
	return g.Out
}
