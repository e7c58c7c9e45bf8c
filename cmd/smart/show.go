package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"smart"
	"smart/data"
)

func runShow(ctx context.Context, e *env, args []string) error {
	flags := newFlags(e, "show", "[--max-order N] FILE...", `
Draws each stencil's access pattern, one x-y slice per z plane for 3-D (+y at the top), after a
one-line summary: name, dimensions, order, points, grid, element type, steps and ID.
  @ the centre   o a point the stencil reads   . a point it does not read
FILE - reads stdin; a name of an embedded sample (smart show j3d27pt) reads that sample
when no such file exists.

Examples:
  smart show data/stencils/j3d7pt.json
  smart generate --shape diamond --dims 2 --order 3 --out - | smart show -`)
	maxOrder := flags.Int("max-order", smart.DefaultMaxOrder, fmt.Sprintf("largest order a file may have, up to %d", smart.MaxMaxOrder))
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("give one or more stencil files")
	case *maxOrder < 1 || *maxOrder > smart.MaxMaxOrder:
		return usagef("--max-order is %d; it lies in 1-%d", *maxOrder, smart.MaxMaxOrder)
	case len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" })) > 1:
		return usagef("'-' (standard input) is given twice; it can be read once")
	}
	var errs []error
	for i, path := range files {
		s, err := loadStencil(e, path, smart.Limits{MaxOrder: *maxOrder})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintln(e.stdout, summary(s))
		drawPattern(e.stdout, s)
	}
	return errors.Join(errs...)
}

// loadStencil reads and validates a stencil file; "-" is stdin, and a name with no such file
// that names an embedded sample reads the sample. Errors start with "stencil file PATH:".
func loadStencil(e *env, path string, lim smart.Limits) (*smart.Stencil, error) {
	var s *smart.Stencil
	var err error
	if path == "-" {
		s, err = smart.ReadStencil(e.stdin, lim)
	} else {
		var f *os.File
		f, err = os.Open(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if sample, serr := data.StencilFile(strings.TrimSuffix(path, ".json")); serr == nil {
				s, err = smart.ParseStencil(sample, lim)
			} else {
				err = fmt.Errorf("no such file; the embedded samples are %s", strings.Join(data.StencilNames(), ", "))
			}
		case err == nil:
			s, err = smart.ReadStencil(f, lim)
			f.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("stencil file %s: %w", path, err)
	}
	if s.Name == "" && path != "-" {
		// Messages and tables name the stencil; the file's name is the one the user knows.
		s.Name = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return s, nil
}

// stencilFile is a stencil with the file it was read from.
type stencilFile struct {
	path    string
	stencil *smart.Stencil
}

// loadStencils reads stencil files, the *.json files of directories, and embedded sample names.
func loadStencils(e *env, paths []string, lim smart.Limits) ([]stencilFile, error) {
	var out []stencilFile
	for _, p := range paths {
		files := []string{p}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			if files, err = filepath.Glob(filepath.Join(p, "*.json")); err != nil {
				return nil, err
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("directory %s holds no stencil files (*.json)", p)
			}
		}
		for _, f := range files {
			st, err := loadStencil(e, f, lim)
			if err != nil {
				return nil, err
			}
			out = append(out, stencilFile{f, st})
		}
	}
	return out, nil
}

// summary is the one-line description of a stencil.
func summary(s *smart.Stencil) string {
	name := s.Name
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Sprintf("%s: %d-D, order %d, %d points, grid %s, %s, %d steps, id %s",
		name, s.Dims, s.Order(), s.NNZ(), gridText(s), s.Dtype, s.Steps, s.ID())
}

// gridText writes the grid's extents as 512x512x512.
func gridText(s *smart.Stencil) string {
	ext := make([]string, s.Dims)
	for a := range ext {
		ext[a] = fmt.Sprint(s.Grid[a])
	}
	return strings.Join(ext, "x")
}

// drawPattern writes the pattern as slices of the cube of radius max(order, 1).
func drawPattern(w io.Writer, s *smart.Stencil) {
	r := max(s.Order(), 1)
	read := make(map[smart.Offset]bool, s.NNZ())
	for _, p := range s.Points {
		read[p.Off] = true
	}
	zr := 0
	if s.Dims == 3 {
		zr = r
	}
	for z := -zr; z <= zr; z++ {
		if s.Dims == 3 {
			fmt.Fprintf(w, "z = %s\n", signed(z))
		}
		var b strings.Builder
		b.WriteString("  y\\x")
		for x := -r; x <= r; x++ {
			fmt.Fprintf(&b, "%3s", signed(x))
		}
		fmt.Fprintln(w, b.String())
		for y := r; y >= -r; y-- {
			b.Reset()
			fmt.Fprintf(&b, "  %3s", signed(y))
			for x := -r; x <= r; x++ {
				o := smart.Offset{x, y, z}
				mark := "."
				switch {
				case o == smart.Offset{}:
					mark = "@"
				case read[o]:
					mark = "o"
				}
				fmt.Fprintf(&b, "%3s", mark)
			}
			fmt.Fprintln(w, b.String())
		}
	}
}

// signed writes an offset with its sign: -1, 0, +1.
func signed(v int) string {
	if v > 0 {
		return fmt.Sprintf("+%d", v)
	}
	return fmt.Sprint(v)
}
