package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"smart/catalog"
	"smart/dataset"
)

// datasetCommands are the subcommands of smart dataset.
var datasetCommands = []command{
	{"import", "read Kernel Tuner cache or T4 files into a data set", runDatasetImport},
	{"merge", "join shards (or, with --allow-mixed, any data sets) into one", runDatasetMerge},
	{"stats", "rows per GPU, OC and status; best-OC distribution; best-to-worst OC ratios", runDatasetStats},
	{"label", "best OC per stencil and GPU, and OCs merged into classes by correlation", runDatasetLabel},
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
	fs := newFlags(e, "dataset import")
	o.register(fs)
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if o.out == "" || len(files) == 0 {
		return usagef("give the files to import and --out DIR")
	}
	cat, err := catalog.Load(o.catalogFile)
	if err != nil {
		return err
	}
	bar := newProgress(e, "import", len(files))
	o.Resolve, o.Progress = cat.Resolve, func(done, _ int) { bar.Update(done) }
	sums, err := dataset.Import(ctx, o.out, files, o.ImportOptions)
	switch {
	case errors.As(err, new(*dataset.MixedError)):
		return fmt.Errorf("%w; pass --allow-mixed to import them into one data set, or import each on its own", err)
	case errors.Is(err, dataset.ErrNoDevice):
		return fmt.Errorf("%w; name it (e.g. --device \"AMD Instinct MI250X\")", err)
	case errors.Is(err, dataset.ErrNoKernel):
		return fmt.Errorf("%w; name the kernel (e.g. --kernel convolution_kernel)", err)
	case err != nil:
		return err
	}
	if o.asJSON {
		return writeJSON(e, sums)
	}
	if err := dataset.WriteFileSummaries(e.stdout, sums); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", o.out)
	return nil
}

func runDatasetMerge(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "dataset merge")
	out := fs.String("out", "", "new data set directory (missing or empty)")
	allowMixed := fs.Bool("allow-mixed", false, "join data sets of different devices, sources or plans")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *out == "" || len(dirs) == 0 {
		return usagef("give the data sets to merge and --out DIR")
	}
	sum, err := dataset.Merge(ctx, *out, dirs, *allowMixed)
	if errors.As(err, new(*dataset.MixedError)) {
		return fmt.Errorf("%w; give --allow-mixed if merging them is meant", err)
	} else if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, sum)
	}
	return sum.WriteText(e.stdout, *out, len(dirs))
}

// datasetStatsOpts are the flags of the command.
type datasetStatsOpts struct {
	asJSON bool
}

func (o *datasetStatsOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print the statistics as JSON")
}

func runDatasetStats(ctx context.Context, e *env, args []string) error {
	var o datasetStatsOpts
	fs := newFlags(e, "dataset stats")
	o.register(fs)
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usagef("give one data set directory")
	}
	s, err := dataset.ComputeStats(dirs[0])
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(e, s)
	}
	return s.WriteTables(e.stdout, dirs[0])
}

// datasetLabelOpts are the flags of the command.
type datasetLabelOpts struct {
	classes  int
	relative bool
	asJSON   bool
}

func (o *datasetLabelOpts) register(fs *flag.FlagSet) {
	fs.IntVar(&o.classes, "classes", dataset.DefaultClasses, "number of OC classes")
	fs.BoolVar(&o.relative, "relative", false, "correlate times divided by each stencil's best time, not the times (see above)")
	fs.BoolVar(&o.asJSON, "json", false, "print labels.json's content")
}

func runDatasetLabel(ctx context.Context, e *env, args []string) error {
	var o datasetLabelOpts
	fs := newFlags(e, "dataset label")
	o.register(fs)
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usagef("give one data set directory")
	}
	if o.classes < 1 {
		return usagef("--classes is %d; use 1 or more", o.classes)
	}
	l, err := dataset.LabelWith(dirs[0], dataset.LabelOptions{Classes: o.classes, Relative: o.relative})
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(e, l)
	}
	if err := l.WriteTables(e.stdout, dirs[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s/%s\n", dirs[0], dataset.LabelsFile)
	return nil
}
