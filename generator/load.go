package generator

import (
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

// ErrDirectory is Load's error for a directory: a command of one stencil may name the command
// that takes a directory.
var ErrDirectory = errors.New("is a directory, not a stencil file; give one of its *.json files")

// Load reads and validates a stencil file. Path "-" reads stdin; a path with no such file that
// names an embedded sample (j3d7pt, or j3d7pt.json) reads the sample. A stencil without a name
// takes the file's, the name its user knows ("stdin" from standard input). Errors start with
// "stencil file PATH:".
func Load(path string, stdin io.Reader, lim smart.Limits) (*smart.Stencil, error) {
	s, err := load(path, stdin, lim)
	if err != nil {
		return nil, fmt.Errorf("stencil file %s: %w", path, err)
	}
	switch {
	case s.Name != "":
	case path == "-":
		s.Name = "stdin" // every output names its stencil; a blank name read as none
	default:
		s.Name = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return s, nil
}

func load(path string, stdin io.Reader, lim smart.Limits) (*smart.Stencil, error) {
	if path == "-" {
		return smart.ReadStencil(stdin, lim)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		sample, serr := data.StencilFile(strings.TrimSuffix(path, ".json"))
		if serr != nil {
			return nil, fmt.Errorf("no such file; the embedded samples are %s", strings.Join(data.StencilNames(), ", "))
		}
		return smart.ParseStencil(sample, lim)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, ErrDirectory
	}
	return smart.ReadStencil(f, lim)
}

// ExpandDirs replaces each directory of paths with its *.json files, in name order; other
// paths (files, embedded sample names, "-") stay as they are.
func ExpandDirs(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("directory %s holds no stencil files (*.json)", p)
		}
		out = append(out, files...)
	}
	return out, nil
}

// Loaded is a stencil with the file, sample name or "-" it was read from.
type Loaded struct {
	File    string
	Stencil *smart.Stencil
}

// LoadAll reads every stencil of paths in order (Load each; a directory means its *.json
// files, ExpandDirs). It goes on past a path or file that fails: it returns the stencils read
// and the failures joined, each naming its path (nil when none failed). "-" given twice is
// refused before any is read: standard input is read once, and would be empty the second time.
func LoadAll(paths []string, stdin io.Reader, lim smart.Limits) ([]Loaded, error) {
	if i := slices.Index(paths, "-"); i >= 0 && slices.Contains(paths[i+1:], "-") {
		return nil, errors.New(`"-" (standard input) is given twice; it can be read once`)
	}
	var out []Loaded
	var errs []error
	for _, p := range paths {
		files, err := ExpandDirs([]string{p})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			st, err := Load(f, stdin, lim)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, Loaded{File: f, Stencil: st})
		}
	}
	return out, errors.Join(errs...)
}
