package smart

import (
	"fmt"
	"io"
	"strings"

	"smart/internal/english"
)

// Summary is the stencil on one line: name, dimensions, order, points, grid, element type,
// steps and ID.
func (s *Stencil) Summary() string {
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("%s: %d-D, order %d, %s, grid %s, %s, %s, id %s",
		name, s.Dims, s.Order(), english.Plural(s.NNZ(), "point"), s.GridText(), s.Dtype, english.Plural(s.Steps, "step"), s.ID())
}

// GridText writes the grid's extents as 512x512x512.
func (s *Stencil) GridText() string { return FormatGrid(s.Grid, s.Dims) }

// FormatGrid writes the first dims extents of g as 512x512x512.
func FormatGrid(g [3]int, dims int) string {
	ext := make([]string, min(max(dims, 1), 3))
	for a := range ext {
		ext[a] = fmt.Sprint(g[a])
	}
	return strings.Join(ext, "x")
}

// WritePattern draws the points the stencil reads as slices of the cube of radius
// max(order, 1), one x-y slice per z plane in 3-D (+y at the top): @ the centre, o a point read,
// . a point not read.
func (s *Stencil) WritePattern(w io.Writer) error {
	r := max(s.Order(), 1)
	read := make(map[Offset]bool, s.NNZ())
	for _, p := range s.Points {
		read[p.Off] = true
	}
	zr := 0
	if s.Dims == 3 {
		zr = r
	}
	var b strings.Builder
	for z := -zr; z <= zr; z++ {
		if s.Dims == 3 {
			fmt.Fprintf(&b, "z = %s\n", Signed(z))
		}
		b.WriteString("  y\\x")
		for x := -r; x <= r; x++ {
			fmt.Fprintf(&b, "%3s", Signed(x))
		}
		b.WriteByte('\n')
		for y := r; y >= -r; y-- {
			fmt.Fprintf(&b, "  %3s", Signed(y))
			for x := -r; x <= r; x++ {
				o := Offset{x, y, z}
				mark := "."
				switch {
				case o == Offset{}:
					mark = "@"
				case read[o]:
					mark = "o"
				}
				fmt.Fprintf(&b, "%3s", mark)
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Signed writes an offset along an axis with its sign: -1, 0, +1.
func Signed(v int) string {
	if v > 0 {
		return fmt.Sprintf("+%d", v)
	}
	return fmt.Sprint(v)
}
