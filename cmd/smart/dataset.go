package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		datasetUsage(e.stdout)
		if len(args) == 0 {
			return usagef("name a subcommand")
		}
		return nil
	}
	for _, c := range datasetCommands {
		if c.name == args[0] {
			return ofSubcommand("dataset", c.name, c.run(ctx, e, args[1:]))
		}
	}
	return usagef("unknown subcommand %q; the subcommands are import, merge, stats and label", args[0])
}

func datasetUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: smart dataset <subcommand> [flags] [args]\n\nA data set is a directory: meta.json (source, device, plan), rows.csv (one row per variant,")
	fmt.Fprintln(w, "readable by pandas.read_csv), stencils/ and, once labelled, labels.json.\n\nSubcommands:")
	for _, c := range datasetCommands {
		fmt.Fprintf(w, "  %-7s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'smart dataset <subcommand> --help' for its flags and an example.")
}

// datasetImportHelp is the description of --help, with examples.
const datasetImportHelp = `
Reads Kernel Tuner cache files (.json or .json.gz) and T4 result files into a new data set:
every configuration becomes a row with source "imported", the device the file names and, where
the catalogue knows that device, its GPU name. Failed configurations are rows too
(CompilationFailedConfig: compile_error, RuntimeFailedConfig: launch_error, InvalidConfig:
invalid). time_ms is the median of the repeated runs; mean_ms is Kernel Tuner's own "time".
A space.json beside a file adds the kernel's constraints to meta.json for tuners.

T4 files name neither device nor kernel: --device names it (as do caches with an empty
device_name), and the kernel comes from space.json or --kernel. Files of several devices go into
one data set only with --allow-mixed. A configuration given twice (a cache and its T4 twin) is
kept once.

Example:
  smart dataset import data/kernel-tuner/convolution_milo/{A100,A4000,A6000,MI250X,W6600,W7800}.json.gz --device "AMD Instinct MI250X" --allow-mixed --out runs/conv`

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
	fs := newFlags(e, "dataset import", "FILE... --out DIR [flags]", datasetImportHelp)
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
	fs := newFlags(e, "dataset merge", "DIR... --out DIR [--allow-mixed]", `
Joins data sets into a new one: the shards of one 'smart bench' plan, checked to share the
plan, the device and the source. Data sets of different devices, sources or plans are joined
only with --allow-mixed, which meta.json records; every row keeps its own device and source. A
variant present in several inputs is kept once. --out must be new (or an empty directory); the
merge is built beside it and moved into place when complete, so a failed one leaves nothing.

Examples:
  smart bench --backend sim --random 8 --dims 2 --samples 3 --shard 1/2 --out runs/sim-2d-1
  smart bench --backend sim --random 8 --dims 2 --samples 3 --shard 2/2 --out runs/sim-2d-2
  smart dataset merge runs/sim-2d-1 runs/sim-2d-2 --out runs/sim-2d`)
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

// datasetStatsHelp is the description of --help, with examples.
const datasetStatsHelp = `
Summarises a data set: rows by GPU, OC (or imported kernel) and status; for how many stencils
each OC is the best on each GPU (StencilMART Fig. 2); and, per GPU, the ratio of each stencil's
worst OC to its best (Fig. 1), OCs compared by their fastest ok setting and OCs that never ran
left out. Imported kernels get their fastest configuration.

Example:
  smart dataset stats runs/a100-sim`

// datasetStatsOpts are the flags of the command.
type datasetStatsOpts struct {
	asJSON bool
}

func (o *datasetStatsOpts) register(fs *flag.FlagSet) {
	fs.BoolVar(&o.asJSON, "json", false, "print the statistics as JSON")
}

func runDatasetStats(ctx context.Context, e *env, args []string) error {
	var o datasetStatsOpts
	fs := newFlags(e, "dataset stats", "DIR [--json]", datasetStatsHelp)
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

// datasetLabelHelp is the description of --help, with examples.
const datasetLabelHelp = `
Labels a data set for OC selection (StencilMART section III-C): the best OC of each stencil on
each GPU is the OC whose fastest ok setting is fastest. OCs whose best times correlate across
the stencils (Pearson correlation; anticorrelated OCs count as dissimilar) are merged, the most
correlated pair of classes first (average linkage), until --classes remain; each class is
predicted as the member that wins most often. Writes DIR/labels.json (atomically) and prints
the classes.

StencilMART correlates the best times themselves. Those grow with the stencil under every OC,
so on many data sets all OCs correlate and one class swallows most of them; --relative divides
each stencil's times by its best OC's time first, so OCs correlate when they gain or lose
against the best together.

Example:
  smart dataset label runs/a100-sim --classes 5 --relative`

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
	fs := newFlags(e, "dataset label", "DIR [--classes 5] [--json]", datasetLabelHelp)
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
