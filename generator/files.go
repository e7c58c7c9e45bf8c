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

// Write writes the n files file(0..n-1) and returns the path of the last.
func (fw FileWriter) Write(ctx context.Context, n int, file func(i int) (File, error)) (last string, err error) {
	if !fw.Force {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return "", fmt.Errorf("stopped checking the existing files after %d of %d stencils: %w", i, n, err)
			}
			f, err := file(i)
			if err != nil {
				return "", err
			}
			if err := checkUnchanged(f); err != nil {
				return "", err
			}
		}
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("stopped after %d of %d stencils: %w", i, n, err)
		}
		f, err := file(i)
		if err != nil {
			return "", err
		}
		if f.Path == "" {
			if _, err := fw.Stream.Write(f.Data); err != nil {
				return "", fmt.Errorf("writing the stencil: %w", err)
			}
		} else if err := atomicfile.Write(f.Path, f.Data); err != nil {
			return "", err
		}
		last = f.Path
		if fw.Progress != nil {
			fw.Progress(i + 1)
		}
	}
	return last, nil
}

// checkUnchanged fails with a *ChangedError where f's path exists with other content; a
// missing file, the same content or no path is fine.
func checkUnchanged(f File) error {
	if f.Path == "" {
		return nil
	}
	old, err := os.ReadFile(f.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("checking the existing %s: %w", f.Path, err)
	case bytes.Equal(old, f.Data):
		return nil
	}
	return &ChangedError{Path: f.Path}
}
