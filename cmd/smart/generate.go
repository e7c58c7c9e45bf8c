package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"smart"
	"smart/app"
	"smart/generator"
	"smart/internal/cliflag"
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

// generateFlags name the flag of each field of app.Generate named otherwise.
var generateFlags = map[string]string{"Shapes": "--shape"}

func runGenerate(ctx context.Context, e *env, args []string) error {
	var o generateOpts
	fs, _, err := parse(e, "generate", args, o.register, "{shapes}", shapeList(), "{maxcount}", fmt.Sprint(app.MaxGenerate))
	if err == nil {
		err = o.check(fs)
	}
	if err != nil {
		return err
	}
	n := o.Len()
	fw := generator.FileWriter{Force: o.force, Stream: e.stdout}
	if n >= 1000 {
		fw.Progress = newProgress(e, "generate", n).Update
	}
	w, err := fw.Write(ctx, n, o.file)
	switch {
	case errors.As(err, new(*generator.ChangedError)):
		// Refused before any work, as the files of other commands (docs/commands.md): the
		// command line names a file it may not replace, and exits 2.
		return usageError{err: err}
	case err != nil:
		return err
	case o.Out == "-":
	case n == 1 && w.Unchanged == 1:
		fmt.Fprintf(e.stdout, "%s already there, unchanged\n", w.Last)
	case n == 1:
		fmt.Fprintf(e.stdout, "wrote %s\n", w.Last)
	case w.Unchanged == n:
		fmt.Fprintf(e.stdout, "%d stencils already in %s, unchanged; wrote none (last: %s)\n", n, o.Out, filepath.Base(w.Last))
	case w.Unchanged > 0:
		fmt.Fprintf(e.stdout, "wrote %d of %d stencils to %s, the other %d already there unchanged (last: %s)\n", w.Wrote, n, o.Out, w.Unchanged, filepath.Base(w.Last))
	default:
		fmt.Fprintf(e.stdout, "wrote %d stencils to %s (last: %s)\n", n, o.Out, filepath.Base(w.Last))
	}
	return nil
}

// check refuses flags that do not go together or out of their range, reads --grid, and
// prepares --out.
func (o *generateOpts) check(fs *flag.FlagSet) error {
	if o.shape != "" {
		o.Shapes = strings.Split(o.shape, ",")
	}
	var err error
	if err = o.Check(); err != nil {
		if o.Count > app.MaxGenerate && o.shape == "" && o.First >= 0 && o.First <= math.MaxInt-2*app.MaxGenerate {
			return usagef("%w: --first %d --count %d, then --first %d, and so on", settingFlag(fs, err, generateFlags), o.First, app.MaxGenerate, o.First+app.MaxGenerate)
		}
		return settingFlag(fs, err, generateFlags)
	}
	switch o.Grid, err = generator.ParseGrid(o.grid); {
	case o.Random.Keep == 0: // generator.Spec reads 0 as its default; the flag's is not 0
		return usagef("--keep is 0; give a probability in (0, 1]")
	case o.shape == "" && o.Random.Dims == 0 && cliflag.Given(fs, "dims"):
		return usagef("--dims is 0; use 2 or 3")
	case o.shape == "" && o.Random.Order == 0 && cliflag.Given(fs, "order"):
		return usagef("--order is 0; use 1 to %d", smart.MaxMaxOrder)
	case o.shape == "" && (o.Random.Dims == 0 || o.Random.Order == 0):
		return usagef("give --dims and --order for random stencils, or --shape NAME")
	case o.shape != "" && cliflag.Given(fs, "count", "seed", "keep", "first"):
		return usagef("--count, --seed, --keep and --first are for random stencils; leave them out with --shape")
	case err != nil:
		return usagef("--grid %q: %w", o.grid, err)
	}
	return settingFlag(fs, o.Prepare(), generateFlags)
}

// file draws stencil i as it will be written; a stencil the flags cannot make is a usage error.
func (o *generateOpts) file(i int) (generator.File, error) {
	s, err := o.Stencil(i)
	var dims *generator.GridDimsError
	switch {
	case errors.As(err, &dims):
		return generator.File{}, usagef("--%w", err) // "grid has 3 extents but ...": the flag's name
	case err != nil:
		return generator.File{}, usagef("%w", err)
	}
	f := generator.File{Path: o.Path(s)}
	f.Data, err = generator.Marshal(s)
	return f, err
}

// shapeList formats the shapes for --help.
func shapeList() string {
	var b strings.Builder
	for _, sh := range generator.Shapes() {
		fmt.Fprintf(&b, "  %-11s %s\n", sh.Name, sh.Doc)
	}
	return strings.TrimRight(b.String(), "\n")
}
