package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"smart"
	"smart/internal/atomicfile"
)

// Customise gives s the element type, grid extents (nil keeps its grid) and steps, and
// validates the result, so that a file written of it always parses. A grid of other
// dimensions than s is a *GridDimsError.
func Customise(s *smart.Stencil, dtype smart.Dtype, grid []int, steps int) error {
	s.Dtype, s.Steps = dtype, steps
	if grid != nil {
		if len(grid) != s.Dims {
			return &GridDimsError{Extents: len(grid), Stencil: s.Name, Dims: s.Dims}
		}
		s.Grid = [3]int{1, 1, 1}
		copy(s.Grid[:], grid)
	}
	if err := s.Validate(smart.Limits{MaxOrder: max(s.Order(), smart.DefaultMaxOrder)}); err != nil {
		return fmt.Errorf("stencil %s: %w", s.Name, err)
	}
	return nil
}

// GridDimsError is a grid given to a stencil of other dimensions.
type GridDimsError struct {
	Extents int
	Stencil string
	Dims    int
}

func (e *GridDimsError) Error() string {
	return fmt.Sprintf("grid has %d extents but %s is %d-D", e.Extents, e.Stencil, e.Dims)
}

// File is a stencil file to write: where (empty for the stream) and what.
type File struct {
	Path string
	Data []byte
}

// ChangedError is a file that exists with other content than the one generated for it.
type ChangedError struct {
	Path string
}

func (e *ChangedError) Error() string {
	return e.Path + " exists and differs from the stencil generated for it (it may hold your edits); nothing was written"
}

// FileWriter writes generated stencil files. Generated files are there to be edited: one that
// exists with other content is never replaced unless Force is set, and all are checked before
// any is written, so that a refusal leaves the directory as it was. The same content (the same
// files generated again) is left as it is.
type FileWriter struct {
	Force    bool
	Stream   io.Writer         // where files without a path go
	Progress func(written int) // called after each file, where set
}

// Written is what Write did: the files it wrote, those that held their content already.
type Written struct {
	Last      string // the path of the last file, written or left ("" for the stream)
	Wrote     int    // files written (to the stream, or new or replaced on disk)
	Unchanged int    // files that held the generated content already, left as they were
}

// Write writes the n files file(0..n-1), leaving those that hold their content already. It keeps
// nothing per file between the check and the writing (n may be large): each file is drawn again
// and compared with what is there again, so that one changed since the check is refused still.
func (fw FileWriter) Write(ctx context.Context, n int, file func(i int) (File, error)) (Written, error) {
	if !fw.Force {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return Written{}, fmt.Errorf("stopped checking the existing files after %d of %d stencils: %w", i, n, err)
			}
			f, err := file(i)
			if err != nil {
				return Written{}, err
			}
			if _, err := unchanged(f); err != nil {
				return Written{}, err
			}
		}
	}
	var w Written
	for i := range n {
		if err := ctx.Err(); err != nil {
			return w, fmt.Errorf("stopped after %d of %d stencils: %w", i, n, err)
		}
		f, err := file(i)
		if err != nil {
			return w, err
		}
		left, err := unchanged(f)
		if fw.Force && errors.As(err, new(*ChangedError)) {
			err = nil // Force's to replace
		}
		switch {
		case err != nil:
			return w, err
		case left:
			w.Unchanged++
		case f.Path == "":
			if _, err := fw.Stream.Write(f.Data); err != nil {
				return w, fmt.Errorf("writing the stencil: %w", err)
			}
			w.Wrote++
		default:
			if err := atomicfile.Write(f.Path, f.Data); err != nil {
				return w, err
			}
			w.Wrote++
		}
		w.Last = f.Path
		if fw.Progress != nil {
			fw.Progress(i + 1)
		}
	}
	return w, nil
}

// unchanged reports whether f's path holds f's content already; it fails with a *ChangedError
// where the path holds other content. A missing file or no path is not unchanged, and fine.
func unchanged(f File) (bool, error) {
	if f.Path == "" {
		return false, nil
	}
	old, err := os.ReadFile(f.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("checking the existing %s: %w", f.Path, err)
	case bytes.Equal(old, f.Data):
		return true, nil
	}
	return false, &ChangedError{Path: f.Path}
}
