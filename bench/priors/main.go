// Command priors compares the tuner's priors from other GPUs on Kernel Tuner's convolution and
// dedispersion caches: tuner.Transfer (the geometric mean of the other GPUs' times, every
// vendor) and tuner.FewShot (package transfer's prediction from the target's vendor, moved by
// the catalogue's hardware and learning from the search's first runs). Each file is tuned with
// the prior of the other five files of its kernel, by bayes and by pipeline, over seeds; the
// figure is the evaluations a search needs to reach 95% of the file's optimum (Kernel Tuner's
// mean time), as in smart tune-bench.
//
// Usage:
//
//	go run ./bench/priors [-kt DIR] [-kernels NAME,...] [-seeds 20] [-first-seed 0] [-budget 5000] [-methods bayes,pipeline]
//
// -kernels names the kernels' folders under -kt (default convolution_milo,dedispersion_milo),
// each a cache per GPU (benchmark_hub's layout; a cache that names no device is named by its
// file).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"smart"
	"smart/catalog"
	"smart/internal/ktdata"
	"smart/transfer"
	"smart/tuner"
)

func main() {
	ktDir := flag.String("kt", "", "folder holding the Kernel Tuner kernels' folders")
	seeds := flag.Int("seeds", 20, "searches per file, prior and method")
	first := flag.Uint64("first-seed", 0, "the first seed")
	budget := flag.Int("budget", 5000, "evaluations per search")
	methods := flag.String("methods", "bayes,pipeline", "strategies, comma-separated (those that take a prior)")
	kernels := flag.String("kernels", "convolution_milo,dedispersion_milo", "the Kernel Tuner kernels' folders under -kt")
	flag.Parse()
	if err := run(*ktDir, strings.Split(*kernels, ","), *seeds, *first, *budget, strings.Split(*methods, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "priors:", err)
		os.Exit(1)
	}
}

// prior builds a case's prior from the other files of its kernel.
type prior struct {
	name  string
	build func(others []*tuner.KernelTuner, target smart.GPU) (smart.Evaluator, error)
}

func run(ktDir string, kernels []string, seeds int, first uint64, budget int, methods []string) error {
	ctx := context.Background()
	cat, err := catalog.Default()
	if err != nil {
		return err
	}
	priors := []prior{
		{"geomean", func(o []*tuner.KernelTuner, _ smart.GPU) (smart.Evaluator, error) { return tuner.TransferFrom(o), nil }},
		{"fewshot", func(o []*tuner.KernelTuner, g smart.GPU) (smart.Evaluator, error) {
			return tuner.FewShotFrom(o, g, cat, transfer.Settings{})
		}},
		{"fewshot-nolearn", func(o []*tuner.KernelTuner, g smart.GPU) (smart.Evaluator, error) {
			f, err := tuner.FewShotFrom(o, g, cat, transfer.Settings{})
			if f != nil {
				f.MaxShots = -1
			}
			return f, err
		}},
	}
	var cases []tuner.Case
	var contenders []tuner.Contender
	for _, kernel := range kernels {
		dir, ok := ktdata.DirOr(ktDir, kernel)
		if !ok {
			fmt.Fprintf(os.Stderr, "priors: %s not found (set -kt or SMART_KT_DATA); skipped\n", kernel)
			continue
		}
		paths, err := ktdata.Caches(filepath.Join(dir, kernel))
		if err != nil {
			return err
		}
		var files []*tuner.KernelTuner
		for _, path := range paths {
			k, err := tuner.OpenKernelTuner(ctx, path, "") // a cache naming no device: its file's name
			if err != nil {
				return err
			}
			files = append(files, k)
		}
		for i, k := range files {
			others := append(append([]*tuner.KernelTuner{}, files[:i]...), files[i+1:]...)
			target, _ := cat.Lookup(k.Device)
			base := tuner.Case{Name: strings.TrimSuffix(kernel, "_milo") + " " + k.Device, Problem: k.Problem()}
			if base.Optimum, base.Size, err = tuner.Optimum(ctx, base.Problem); err != nil {
				return err
			}
			for _, p := range priors {
				c := base
				c.Name += " / " + p.name
				if c.Prior, err = p.build(others, target); err != nil {
					return fmt.Errorf("%s: %w", c.Name, err)
				}
				cases = append(cases, c)
			}
		}
	}
	for _, m := range methods {
		s, ok := tuner.LookupStrategy(m)
		if !ok || !s.Reads(tuner.OptionPrior) {
			return fmt.Errorf("-methods: %q is no strategy that takes a prior", m)
		}
		contenders = append(contenders, tuner.Contender{Name: m, Seeds: seeds, FirstSeed: first,
			ForCase: func(c tuner.Case) tuner.Method { return s.New(tuner.Options{Prior: c.Prior}) }})
	}
	reach, err := tuner.Compare(ctx, cases, contenders, budget, 0.95, 0, nil)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "file / prior\tmethod\tmedian\t90th\tworst\treached\t")
	for _, r := range reach {
		fmt.Fprintf(w, "%s\t%s\t%.0f\t%.0f\t%.0f\t%d/%d\t\n", r.Case, r.Method, r.Quantile(0.5), r.Quantile(0.9), r.Quantile(1), r.Reached(), len(r.Evaluations))
	}
	return w.Flush()
}
