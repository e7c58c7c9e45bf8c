package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"smart"
	"smart/app"
	"smart/generator"
	"smart/internal/atomicfile"
)

// generateOpts are the flags of the command.
type generateOpts struct {
	app.Generate
	shape string
	grid  string
	force bool
}

func (o *generateOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.shape, "shape", "", "named shape(s), comma-separated (see the list above); empty for random stencils")
	fs.IntVar(&o.Random.Dims, "dims", 0, "dimensions, 2 or 3 (random stencils and shape families)")
	fs.IntVar(&o.Random.Order, "order", 0, fmt.Sprintf("order: the largest Chebyshev distance, 1 to %d (random stencils and shape families)", smart.MaxMaxOrder))
	fs.IntVar(&o.Count, "count", 1, "number of random stencils")
	fs.Uint64Var(&o.Random.Seed, "seed", 1, "seed of the random stencils")
	fs.IntVar(&o.First, "first", 0, "index of the first random stencil (to extend a set without redrawing it)")
	fs.Float64Var(&o.Random.Keep, "keep", generator.DefaultKeep, "probability of keeping each candidate neighbour, in (0, 1]")
	fs.StringVar((*string)(&o.Dtype), "dtype", string(smart.Float64), "element type: float64 or float32")
	fs.StringVar(&o.grid, "grid", "", "grid extents x,y[,z] or XxYxZ (default 8192x8192 in 2-D, 512x512x512 in 3-D)")
	fs.IntVar(&o.Steps, "steps", smart.DefaultSteps, "time steps")
	fs.StringVar(&o.Out, "out", "-", "output file, directory, or - for stdout")
	fs.BoolVar(&o.force, "force", false, "overwrite existing stencil files that differ from the generated ones")
}

func runGenerate(ctx context.Context, e *env, args []string) error {
	var o generateOpts
	fs := newFlags(e, "generate", "{shapes}", shapeList())
	o.register(fs)
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := o.check(fs); err != nil {
		return err
	}
	var err error
	if o.Grid, err = parseGrid(o.grid); err != nil {
		return err
	}
	n := o.Len()
	if o.Dir, err = outputIsDir(o.Out, n); err != nil {
		return err
	}
	if o.Dir {
		if err := atomicfile.CheckDir(o.Out); err != nil {
			return err
		}
		if err := os.MkdirAll(o.Out, 0o755); err != nil {
			return fmt.Errorf("creating the output directory: %w", err)
		}
	}
	fw := generator.FileWriter{Force: o.force, Stream: e.stdout}
	if n >= 1000 {
		fw.Progress = newProgress(e, "generate", n).Update
	}
	last, err := fw.Write(ctx, n, o.file)
	var changed *generator.ChangedError
	switch {
	case errors.As(err, &changed) && o.Dir:
		return fmt.Errorf("%w: give another --out directory, delete the file, or give --force to overwrite it", err)
	case errors.As(err, &changed):
		return fmt.Errorf("%w: give another --out file, delete the file, or give --force to overwrite it", err)
	case err != nil:
		return err
	case o.Out == "-":
	case n == 1:
		fmt.Fprintf(e.stdout, "wrote %s\n", last)
	default:
		fmt.Fprintf(e.stdout, "wrote %d stencils to %s (last: %s)\n", n, o.Out, filepath.Base(last))
	}
	return nil
}

// check refuses flags that do not go together or out of their range.
func (o *generateOpts) check(fs *flag.FlagSet) error {
	switch {
	case o.Count < 1:
		return usagef("--count is %d; give at least 1", o.Count)
	case o.First < 0:
		return usagef("--first is %d; give 0 or more", o.First)
	case o.Random.Keep == 0 && flagsGiven(fs, "keep"): // generator.Spec reads 0 as its default
		return usagef("--keep is 0; give a probability in (0, 1]")
	case o.shape == "" && (o.Random.Dims == 0 || o.Random.Order == 0):
		return usagef("give --dims and --order for random stencils, or --shape NAME")
	case o.shape == "":
		return nil
	case flagsGiven(fs, "count", "seed", "keep", "first"):
		return usagef("--count, --seed, --keep and --first are for random stencils; leave them out with --shape")
	}
	o.Shapes = strings.Split(o.shape, ",")
	return settingFlag(o.Check(), map[string]string{"Shapes": "--shape"})
}

// file draws stencil i as it will be written; a stencil the flags cannot make is a usage error.
func (o *generateOpts) file(i int) (generator.File, error) {
	s, err := o.Stencil(i)
	var dims *generator.GridDimsError
	switch {
	case errors.As(err, &dims):
		return generator.File{}, usagef("--grid has %d extents but %s is %d-D", dims.Extents, dims.Stencil, dims.Dims)
	case err != nil:
		return generator.File{}, usagef("%v", err)
	}
	f := generator.File{Path: o.Path(s)}
	f.Data, err = generator.Marshal(s)
	return f, err
}

// flagsGiven reports whether any of the named flags was given.
func flagsGiven(fs *flag.FlagSet, names ...string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n {
				found = true
			}
		}
	})
	return found
}

// outputIsDir decides whether --out names a directory: an existing one, a path ending in a
// separator, or any path but a .json file when several stencils are written.
func outputIsDir(out string, n int) (bool, error) {
	if out == "-" {
		if n > 1 {
			return false, usagef("%d stencils cannot go to stdout; give --out DIR", n)
		}
		return false, nil
	}
	if st, err := os.Stat(out); err == nil && st.IsDir() {
		return true, nil
	}
	if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
		return true, nil
	}
	if n > 1 {
		if strings.HasSuffix(out, ".json") {
			return false, usagef("--out %s is a file, but %d stencils need a directory", out, n)
		}
		return true, nil
	}
	return false, nil
}

// parseGrid reads "512x512x512" or "512,512,512"; empty means the default grid.
func parseGrid(text string) ([]int, error) {
	if text == "" {
		return nil, nil
	}
	var ext []int
	for _, part := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == 'x' || r == ',' }) {
		v, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return nil, usagef("--grid %q: %q is not an integer; write extents as 512x512x512", text, part)
		}
		ext = append(ext, v)
	}
	if len(ext) != 2 && len(ext) != 3 {
		return nil, usagef("--grid %q has %d extents; give 2 or 3", text, len(ext))
	}
	return ext, nil
}

// shapeList formats the shapes for --help.
func shapeList() string {
	var b strings.Builder
	for _, sh := range generator.Shapes() {
		fmt.Fprintf(&b, "  %-11s %s\n", sh.Name, sh.Doc)
	}
	return strings.TrimRight(b.String(), "\n")
}
