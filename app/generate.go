package app

import (
	"path/filepath"
	"strings"

	"smart"
	"smart/generator"
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

// Check refuses shapes that name none, as a *SettingError of Shapes.
func (g Generate) Check() error {
	for _, name := range g.Shapes {
		if _, err := generator.LookupShape(strings.TrimSpace(name)); err != nil {
			return &SettingError{Field: "Shapes", Err: err, Wrong: true}
		}
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
