package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"smart"
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
	out         string
	device      string
	kernel      string
	allowMixed  bool
	catalogFile string
	asJSON      bool
}

func (o *datasetImportOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "out", "", "new data set directory")
	fs.StringVar(&o.device, "device", "", "device of files that do not name one")
	fs.StringVar(&o.kernel, "kernel", "", "kernel of T4 files with no space.json beside them")
	fs.BoolVar(&o.allowMixed, "allow-mixed", false, "let files of several devices go into one data set")
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
	opt := dataset.ImportOptions{Device: o.device, Kernel: o.kernel, AllowMixed: o.allowMixed,
		Resolve: func(d string) (string, bool) {
			g, err := cat.Lookup(d)
			return g.Name, err == nil
		},
		Progress: func(done, _ int) { bar.Update(done) },
	}
	sums, err := dataset.Import(ctx, o.out, files, opt)
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
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "file\tformat\tdevice\tGPU\tkernel\trows\tok\tfailed\tduplicates")
	for _, s := range sums {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%d\n", s.Path, s.Format, s.Device, cmp.Or(s.GPU, "-"), s.Kernel,
			s.Rows, s.ByStatus[smart.StatusOK], failures(s.ByStatus), s.Duplicates)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s\n", o.out)
	return nil
}

// failures writes the non-ok counts as "compile_error 6, launch_error 155", or 0.
func failures(by map[smart.Status]int) string {
	var parts []string
	for _, st := range []smart.Status{smart.StatusCompileError, smart.StatusLaunchError, smart.StatusWrongResult, smart.StatusTimeout, smart.StatusInvalid} {
		if n := by[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, ", ")
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
	fmt.Fprintf(e.stdout, "wrote %s: %d rows from %d data sets, %d duplicates left out\n", *out, sum.Rows, len(dirs), sum.Duplicates)
	for _, d := range sum.Torn {
		fmt.Fprintf(e.stdout, "%s ended in a torn line (a killed run), left out\n", d)
	}
	if len(sum.MissingShards) > 0 {
		fmt.Fprintf(e.stdout, "shards %s of the plan are missing\n", strings.Join(sum.MissingShards, ", "))
	}
	return nil
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
	w := e.stdout
	fmt.Fprintf(w, "%s: %d rows, %s\n", dirs[0], s.Rows, provenance(s.Meta))
	if s.Torn != nil {
		fmt.Fprintf(w, "rows.csv %s; left out\n", s.Torn)
	}
	printStatusCounts(w, s)
	if len(s.BestOC) > 0 {
		fmt.Fprintln(w, "\nBest OC: stencils for which it is the fastest (StencilMART Fig. 2)")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GPU\tOC\tstencils\t")
		for _, b := range s.BestOC {
			fmt.Fprintf(tw, "%s\t%s\t%d\t\n", b.GPU, b.OC, b.Stencils)
		}
		tw.Flush()
	}
	if len(s.Gap) > 0 {
		fmt.Fprintln(w, "\nWorst OC over best OC per stencil (StencilMART Fig. 1)")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GPU\tstencils\tmin\tmedian\tmean\tmax\t")
		for _, g := range s.Gap {
			fmt.Fprintf(tw, "%s\t%d\t%.2fx\t%.2fx\t%.2fx\t%.2fx\t\n", g.GPU, g.Stencils, g.Min, g.Median, g.Mean, g.Max)
		}
		tw.Flush()
	}
	if len(s.Kernels) > 0 {
		fmt.Fprintln(w, "\nFastest configuration per device and kernel")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "device\tkernel\trows\tok\tbest ms\tslowest/best\tsetting")
		for _, k := range s.Kernels {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.4g\t%.1fx\t%s\n", k.GPU, k.Kernel, k.Rows, k.OK, k.BestMs, k.Spread, k.Setting)
		}
		tw.Flush()
	}
	return nil
}

// printStatusCounts is the table of rows by GPU, OC (or kernel) and status.
func printStatusCounts(w io.Writer, s *dataset.Stats) {
	statuses := []smart.Status{smart.StatusOK, smart.StatusCompileError, smart.StatusLaunchError, smart.StatusWrongResult, smart.StatusTimeout, smart.StatusInvalid}
	fmt.Fprintln(w, "\nRows by GPU, OC and status")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "GPU\tOC or kernel\trows\t")
	for _, st := range statuses {
		fmt.Fprintf(tw, "%s\t", st)
	}
	fmt.Fprintln(tw)
	for _, c := range s.Counts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t", c.GPU, cmp.Or(c.OC, c.Kernel), c.Rows)
		for _, st := range statuses {
			fmt.Fprintf(tw, "%d\t", c.ByStatus[st])
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// provenance says where a data set's numbers come from.
func provenance(m dataset.Meta) string {
	var devs []string
	for _, d := range m.Devices {
		s := d.Name
		if d.GPU != "" && d.GPU != d.Name {
			s = fmt.Sprintf("%s (%s)", d.GPU, d.Name)
		}
		if d.Driver != "" {
			s += fmt.Sprintf(", driver %s, CUDA %s", d.Driver, d.CUDA)
		}
		devs = append(devs, s)
	}
	var srcs []string
	for _, s := range m.Sources {
		srcs = append(srcs, string(s))
	}
	return fmt.Sprintf("%s on %s", strings.Join(srcs, "+"), strings.Join(devs, "; "))
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
	w := e.stdout
	fmt.Fprintf(w, "%s: %d instances (stencil and GPU) labelled from %d rows, %s", dirs[0], len(l.Instances), l.Rows,
		provenance(dataset.Meta{Sources: l.Sources, Devices: l.Devices}))
	if l.Unlabelled > 0 {
		fmt.Fprintf(w, "; %d had no ok time", l.Unlabelled)
	}
	fmt.Fprintf(w, "\n%d OCs ran, merged into %d classes:\n", len(l.OCs), len(l.Classes))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "class\twins\tmembers")
	classes2 := slices.Clone(l.Classes)
	slices.SortStableFunc(classes2, func(a, b dataset.Class) int { return b.Wins - a.Wins })
	for _, c := range classes2 {
		var names []string
		for _, m := range c.Members {
			names = append(names, m.String())
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", c.Label, c.Wins, strings.Join(names, " "))
	}
	tw.Flush()
	if len(l.Merges) > 0 {
		fmt.Fprintln(w, "\nMerges, most correlated first:")
		for _, m := range l.Merges {
			fmt.Fprintf(w, "  %s + %s  (mean PCC %.3f)\n", ocNames(m.A), ocNames(m.B), m.Similarity)
		}
	}
	fmt.Fprintf(w, "wrote %s/%s\n", dirs[0], dataset.LabelsFile)
	return nil
}

func ocNames(ocs []smart.Combination) string {
	var names []string
	for _, oc := range ocs {
		names = append(names, oc.String())
	}
	return "{" + strings.Join(names, " ") + "}"
}
