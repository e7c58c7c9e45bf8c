package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/calibrate"
	"smart/catalog"
	"smart/dataset"
	"smart/transfer"
)

func runTransfer(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "transfer", "--from FILE[,FILE...] --to GPU [--shots FILE] [--budget K] [-o CACHE] [flags]", `
Predicts one kernel's time for every setting on a GPU it was never measured on, from its
measurements on other GPUs: Kernel Tuner cache or T4 files, or smart data sets (one GPU each;
name the GPU of a file that does not with FILE@GPU). Zero-shot, the sources' ranking is moved to
the target's level by the catalogue's bandwidth and FLOPS of both GPUs (sources of the target's
vendor answer alone where there are any); --shots, settings measured on the target (a partial
cache or data set), correct the level and, with 8 or more, how the target treats the parameters.
A GPU the catalogue lacks can be described in a --catalog file, or by the shots alone.
--budget K prints the K settings to measure first instead. The interval is split-conformal from
the shots, each predicted without it, or from the sources, each predicted from the others.

Examples:
  smart transfer --from data/kernel-tuner/convolution_milo/A100.json.gz,data/kernel-tuner/convolution_milo/A6000.json.gz --to rtx-a4000
  smart transfer --from data/kernel-tuner/convolution_milo/A100.json.gz,data/kernel-tuner/convolution_milo/A6000.json.gz --to rtx-a4000 --budget 8
  smart transfer --from data/kernel-tuner/convolution_milo/A100.json.gz,data/kernel-tuner/convolution_milo/A4000.json.gz --to a6000 -o /tmp/A6000-predicted.json --force --json`)
	var from, shots dirList
	fs.Var(&from, "from", "measurements on other GPUs, FILE or FILE@GPU (repeatable, or comma-separated)")
	to := fs.String("to", "", "the GPU to predict for (catalogue name or alias)")
	fs.Var(&shots, "shots", "settings measured on the target: a partial cache or data set (repeatable)")
	budget := fs.Int("budget", -1, "print the K settings to measure first on the target, and stop")
	kernel := fs.String("kernel", "", "the kernel or stencil ID, where the files hold several")
	out := fs.String("o", "", "write the predictions as a Kernel Tuner cache")
	dsOut := fs.String("dataset", "", "write the predictions as a new smart data set in DIR")
	force := fs.Bool("force", false, "replace -o where it exists")
	top := fs.Int("top", 10, "settings to print, fastest first")
	share := fs.Float64("share", 0, "weight of bandwidth in the hardware ratio, in (0, 1]; 0 fits or defaults it")
	level := fs.Float64("level", 0.8, "coverage of the intervals, in (0, 1)")
	fp64 := fs.Bool("fp64", false, "compare the GPUs' double-precision FLOPS")
	ratio := fs.String("ratio", "", "how a time moves to the target: hardware (bandwidth and FLOPS) or analytic (the calibrated stencil model's ratio of each setting; the default for stencils)")
	catFile := fs.String("catalog", "", "GPU catalogue file merged over the embedded one")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 0:
		return usagef("unexpected argument %q; give the source files with --from", rest[0])
	case len(from) == 0:
		return usagef("give the kernel's measurements on other GPUs with --from")
	case *to == "":
		return usagef("give the GPU to predict for with --to (see smart gpus)")
	case !(*level > 0 && *level < 1) || *share < 0 || *share > 1:
		return usagef("--level must lie in (0, 1) and --share in [0, 1]")
	}
	cat, err := catalog.Load(*catFile)
	if err != nil {
		return err
	}
	srcFiles, err := openTransferFiles(from, cat)
	if err != nil {
		return err
	}
	sources, err := transfer.Select(srcFiles, *kernel)
	if err != nil {
		if errors.Is(err, transfer.ErrSeveralKernels) {
			return fmt.Errorf("%w with --kernel", err)
		}
		return err
	}
	target, err := transferTarget(*to, shots, *kernel, cat)
	if err != nil {
		return err
	}
	set := transfer.Settings{Share: *share, Level: *level, FP64: *fp64}
	if set.Ratio, err = transferRatio(*ratio, srcFiles); err != nil {
		return err
	}
	if set.Ratio != nil {
		set.RatioName = "the calibrated analytic model's"
	}
	if *budget >= 0 {
		return printShots(e, sources, target, *budget, set, *asJSON)
	}
	p, err := transfer.Predict(sources, target, set)
	if errors.Is(err, transfer.ErrNoLevel) {
		return fmt.Errorf("%w: describe %s in a --catalog file, or give settings measured on it with --shots", err, *to)
	}
	if err != nil {
		return err
	}
	if err := writeTransfer(p, srcFiles, *out, *dsOut, *force); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e, p)
	}
	printTransfer(e, p, *top, *out, *dsOut)
	return nil
}

// transferRatio reads --ratio: the calibrated analytic model's ratio for stencils unless
// hardware is asked for; a Kernel Tuner kernel has no model.
func transferRatio(flag string, files []*transfer.File) (func(transfer.Variant, smart.GPU, smart.GPU) (float64, bool), error) {
	stencils := map[string]*smart.Stencil{}
	for _, f := range files {
		maps.Copy(stencils, f.Stencils)
	}
	switch {
	case flag == "hardware" || (flag == "" && len(stencils) == 0):
		return nil, nil
	case flag != "analytic" && flag != "":
		return nil, usagef("--ratio %q: give hardware or analytic", flag)
	case len(stencils) == 0:
		return nil, usagef("--ratio analytic needs stencils (smart data sets); a Kernel Tuner kernel moves by --ratio hardware")
	}
	cal, err := calibrate.Default()
	if err != nil {
		return nil, err
	}
	return transfer.AnalyticRatio(stencils, &cal.Calibration), nil
}

// openTransferFiles opens FILE or FILE@GPU each.
func openTransferFiles(paths []string, cat *catalog.Catalog) ([]*transfer.File, error) {
	var files []*transfer.File
	for _, p := range paths {
		path, device, _ := strings.Cut(p, "@")
		f, err := transfer.Open(path, device, cat)
		if errors.Is(err, dataset.ErrNoDevice) {
			return nil, fmt.Errorf("%w: name its GPU as %s@GPU", err, path)
		}
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// transferTarget is the --to GPU with its --shots; a GPU the catalogue lacks stands on the shots.
func transferTarget(name string, shots []string, kernel string, cat *catalog.Catalog) (transfer.Target, error) {
	t := transfer.Target{Name: name}
	g, err := cat.Lookup(name)
	switch {
	case err == nil:
		t.GPU = g
	case len(shots) == 0:
		return t, fmt.Errorf("%w; describe it in a --catalog file, or give settings measured on it with --shots", err)
	}
	if len(shots) == 0 {
		return t, nil
	}
	files, err := openTransferFiles(shots, cat)
	if err != nil {
		return t, err
	}
	sel, err := transfer.Select(files, kernel)
	if err != nil {
		return t, fmt.Errorf("--shots: %w", err)
	}
	for _, s := range sel {
		t.Shots = append(t.Shots, s.Rows...)
	}
	return t, nil
}

func printShots(e *env, sources []transfer.Source, target transfer.Target, k int, set transfer.Settings, asJSON bool) error {
	vs, err := transfer.ChooseShots(sources, target, k, set)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(e, vs)
	}
	fmt.Fprintf(e.stdout, "measure these %d settings on %s first (the zero-shot ranking's fastest, then one per stratum of it, spreading the parameters):\n", len(vs), cmp.Or(target.GPU.Name, target.Name))
	for i, v := range vs {
		fmt.Fprintf(e.stdout, "%3d  %s\n", i+1, variantText(v))
	}
	return nil
}

func variantText(v transfer.Variant) string {
	if v.OC == 0 && v.StencilID == "" {
		return v.Setting.String()
	}
	return v.OC.String() + " " + v.Setting.String()
}

// writeTransfer writes the outputs asked for: a Kernel Tuner cache needs a Kernel Tuner source.
func writeTransfer(p *transfer.Prediction, src []*transfer.File, out, dsOut string, force bool) error {
	var kernel *dataset.Kernel
	for _, f := range src {
		if f.Kernel != nil {
			kernel = f.Kernel
		}
	}
	if out != "" {
		if kernel == nil {
			return usagef("-o writes a Kernel Tuner cache, which needs Kernel Tuner sources; use --dataset for data sets")
		}
		err := transfer.WriteKernelTuner(out, p, *kernel, p.Target, force)
		if errors.Is(err, transfer.ErrExists) {
			return fmt.Errorf("%w; nothing was written: give another -o or --force", err)
		}
		if err != nil {
			return err
		}
	}
	if dsOut == "" {
		return nil
	}
	if kernel != nil {
		return transfer.WriteDataSet(dsOut, p, kernel.Names(), nil, []dataset.Kernel{*kernel})
	}
	return transferStencilDataSet(dsOut, p, src)
}

// transferStencilDataSet writes a stencil's predictions with the stencil, read from a source.
func transferStencilDataSet(dir string, p *transfer.Prediction, src []*transfer.File) error {
	if len(p.Variants) == 0 {
		return errors.New("no settings to write")
	}
	id := p.Variants[0].StencilID
	for _, f := range src {
		if st, err := dataset.ReadStencil(f.Path, id); err == nil {
			return transfer.WriteDataSet(dir, p, dataset.StencilParams(), []*smart.Stencil{st}, nil)
		}
	}
	return fmt.Errorf("no source data set holds stencil %s's definition", id)
}

func printTransfer(e *env, p *transfer.Prediction, top int, out, dsOut string) {
	fmt.Fprintf(e.stdout, "%s, predicted from %s", p.Target, strings.Join(p.Sources, ", "))
	if len(p.Ignored) > 0 {
		fmt.Fprintf(e.stdout, " (other vendor, left out: %s)", strings.Join(p.Ignored, ", "))
	}
	fmt.Fprintf(e.stdout, "\nbasis: %s\n", p.Basis)
	if iv := p.Interval; iv != nil {
		fmt.Fprintf(e.stdout, "%.0f%% interval: x%.2f to x%.2f of each time (from %s)\n", 100*iv.Level, math.Exp(iv.LogLo), math.Exp(iv.LogHi), iv.From)
	} else {
		fmt.Fprintln(e.stdout, "no interval: one source and fewer than 4 shots leave no errors to measure it on")
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "rank\ttime ms\tinterval\t\tsetting")
	for i, v := range p.Variants[:min(top, len(p.Variants))] {
		iv, what := "", ""
		if v.HiMs > 0 {
			iv = fmt.Sprintf("%.4g-%.4g", v.LoMs, v.HiMs)
		}
		if v.Shot {
			what = "measured"
		}
		fmt.Fprintf(w, "%d\t%.4g\t%s\t%s\t%s\n", i+1, v.TimeMs, iv, what, variantText(v))
	}
	w.Flush()
	for _, f := range []string{out, dsOut} {
		if f != "" {
			fmt.Fprintf(e.stdout, "wrote %s\n", f)
		}
	}
}
