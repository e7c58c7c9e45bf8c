package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"smart/catalog"
	"smart/dataset"
	"smart/internal/atomicfile"
	"smart/internal/cliflag"
)

// datasetCommands are the subcommands of smart dataset.
var datasetCommands = []command{
	{"import", "read Kernel Tuner cache, T4 or KTT files into a data set", runDatasetImport},
	{"merge", "join shards (or, with --allow-mixed, any data sets) into one", runDatasetMerge},
	{"stats", "rows per GPU, OC and status; best-OC distribution; best-to-worst OC ratios", runDatasetStats},
	{"label", "best OC per stencil and GPU, and OCs merged into classes by correlation", runDatasetLabel},
	{"fastest", "the fastest variant of each stencil measured on each GPU, over data sets", runDatasetFastest},
}

func runDataset(ctx context.Context, e *env, args []string) error {
	return runSubcommand(ctx, e, "dataset", datasetCommands, args)
}

// datasetImportOpts are the flags of the command.
type datasetImportOpts struct {
	dataset.ImportOptions
	out         string
	catalogFile string
	asJSON      bool
}

func (o *datasetImportOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "new data set directory")
	fs.StringVar(&o.Device, "device", "", "device of files that do not name one")
	fs.StringVar(&o.Kernel, "kernel", "", "kernel of T4 files with no space.json beside them")
	fs.BoolVar(&o.AllowMixed, "allow-mixed", false, "let files of several devices go into one data set")
	fs.StringVar(&o.catalogFile, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print the per-file summary as JSON")
}

func runDatasetImport(ctx context.Context, e *env, args []string) error {
	var o datasetImportOpts
	_, files, err := parse(e, "dataset import", args, o.register)
	switch {
	case err != nil:
		return err
	case o.out == "" || len(files) == 0:
		return usagef("give the files to import and --out DIR")
	}
	cat, err := catalog.Load(o.catalogFile)
	if err != nil {
		return err
	}
	bar := newProgress(e, "import", len(files))
	o.Resolve, o.Progress = cat.Resolve, func(done, _ int) { bar.Update(done) }
	sums, err := dataset.Import(ctx, o.out, files, o.ImportOptions)
	if err != nil {
		return err
	}
	summaries := func(w io.Writer) error { return dataset.WriteFileSummaries(w, sums) }
	return printOut(e, o.asJSON, sums, then(summaries, "wrote "+o.out))
}

func runDatasetMerge(ctx context.Context, e *env, args []string) error {
	var out string
	var allowMixed, asJSON bool
	_, dirs, err := parse(e, "dataset merge", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "out", "", "new data set directory (missing or empty)")
		fs.BoolVar(&allowMixed, "allow-mixed", false, "join data sets of different devices, sources or plans")
		fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	})
	switch {
	case err != nil:
		return err
	case out == "" || len(dirs) == 0:
		return usagef("give the data sets to merge and --out DIR")
	}
	sum, err := dataset.Merge(ctx, out, dirs, allowMixed)
	if err != nil {
		return err
	}
	return printOut(e, asJSON, sum, func(w io.Writer) error { return sum.WriteText(w, out, len(dirs)) })
}

func runDatasetStats(ctx context.Context, e *env, args []string) error {
	var asJSON bool
	_, dirs, err := parse(e, "dataset stats", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the statistics as JSON")
	})
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return usagef("give one data set directory")
	}
	s, err := dataset.ComputeStats(ctx, dirs[0])
	if err != nil {
		return err
	}
	return printOut(e, asJSON, s, func(w io.Writer) error { return s.WriteTables(w, dirs[0]) })
}

func runDatasetFastest(ctx context.Context, e *env, args []string) error {
	var out string
	var force, asJSON bool
	_, patterns, err := parse(e, "dataset fastest", args, func(fs *flag.FlagSet) {
		fs.StringVar(&out, "o", "", "also write them to this JSON file (format smart-fastest/1)")
		fs.BoolVar(&force, "force", false, "replace -o even where it is not such a file")
		fs.BoolVar(&asJSON, "json", false, "print them as JSON")
	})
	switch {
	case err != nil:
		return err
	case len(patterns) == 0:
		return usagef("give the data sets (directories, or patterns such as 'runs/*/rows.csv')")
	}
	// A file -o may not replace is a mistake in the command line, found before reading the data.
	if out != "" {
		if err := atomicfile.CheckReplace(out, force, dataset.FastestKind()); errors.As(err, new(*atomicfile.NotOursError)) {
			return usagef("-o %s: %w", out, err)
		} else if err != nil {
			return fmt.Errorf("-o %s: %w", out, err)
		}
	}
	dirs, err := dataset.Glob(patterns)
	if err != nil {
		return err
	}
	f, err := dataset.FastestMeasured(ctx, dirs)
	if err != nil {
		return err
	}
	wrote := ""
	if out != "" {
		if err := dataset.WriteFastest(out, f, force); err != nil {
			return err
		}
		wrote = "wrote " + out
	}
	return printOut(e, asJSON, f, then(f.WriteText, wrote))
}

func runDatasetLabel(ctx context.Context, e *env, args []string) error {
	var opts dataset.LabelOptions
	var asJSON bool
	var like string
	fs, dirs, err := parse(e, "dataset label", args, func(fs *flag.FlagSet) {
		fs.IntVar(&opts.Classes, "classes", dataset.DefaultClasses, "number of OC classes")
		fs.BoolVar(&opts.Relative, "relative", false, "correlate times divided by each stencil's best time, not the times (see above)")
		fs.StringVar(&like, "classes-from", "", "label with the classes of this labelled data set instead of merging (see above)")
		fs.BoolVar(&asJSON, "json", false, "print labels.json's content")
	})
	switch {
	case err != nil:
		return err
	case len(dirs) != 1:
		return usagef("give one data set directory")
	case opts.Classes < 1:
		return usagef("--classes is %d; use 1 or more", opts.Classes)
	case like != "" && cliflag.Given(fs, "classes"):
		return usagef("--classes-from takes its classes from %s; leave out --classes", like)
	}
	if like != "" {
		from, err := dataset.ReadLabels(like)
		if err != nil {
			return fmt.Errorf("--classes-from: %w", err)
		}
		opts.Given = from.Classes
	}
	l, err := dataset.LabelWith(ctx, dirs[0], opts)
	if err != nil {
		return err
	}
	tables := func(w io.Writer) error { return l.WriteTables(w, dirs[0]) }
	return printOut(e, asJSON, l, then(tables, "wrote "+filepath.Join(dirs[0], dataset.LabelsFile)))
}
