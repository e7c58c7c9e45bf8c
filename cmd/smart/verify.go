package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"text/tabwriter"
	"time"

	"smart"
	"smart/dataset/cuda"
)

// verifyHelp is the description of --help, with examples.
const verifyHelp = `
Checks the generated CUDA kernels of each stencil without a GPU. For every OC it draws --samples
settings uniformly at random from the setting space of a small copy of the stencil (2-D
(37+4r)x(33+4r), 3-D 21x19x17 grown with the order: odd extents, so tiles never fit exactly),
then, batched many variants to a translation unit:
  - compiles them to PTX with clang-14 for sm_80 (is it valid CUDA?), and
  - runs them on the CPU (g++ with AddressSanitizer, each block's threads as std::threads) for 2
    time steps, or tt full and tt-1 more with temporal blocking, on random data with unwritten
    points poisoned with NaN, and compares the whole grid with a plain float64 reference: within
    1e-12 relative error for float64, 2*steps*(nnz+2)*2^-24 for float32.
A barrier only some threads reach hangs: every run has a --timeout. The exit status is 0 only if
every variant passes. Needs clang-14 and g++ (Debian packages clang-14 and g++); real runs on a
GPU need nvcc.

Examples:
  smart verify j2d5pt j3d7pt --samples 1
  smart verify data/stencils/j2d9pt.json --oc ST_RT_TB,TB --samples 3 --seed 7 --json`

// verifyOpts are the flags of the command.
type verifyOpts struct {
	ocList  string
	samples int
	seed    uint64
	gpuName string
	catFile string
	jobs    int
	timeout time.Duration
	asJSON  bool
}

func (o *verifyOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.ocList, "oc", "all", "optimization combinations: all, or a comma-separated list such as ST_BM,TB")
	fs.IntVar(&o.samples, "samples", 3, "random settings per stencil and OC")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the settings and the input data")
	fs.StringVar(&o.gpuName, "gpu", "", "GPU whose limits bound the settings, from the catalogue (smart gpus); default sm_80")
	fs.StringVar(&o.catFile, "catalog", "", "GPU catalogue file merged over the embedded one")
	fs.IntVar(&o.jobs, "jobs", 0, "batches compiled and run at once (default: the number of CPUs)")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "time a variant's CPU run may take before it counts as a hang")
	fs.BoolVar(&o.asJSON, "json", false, "print the results as JSON")
}

func runVerify(ctx context.Context, e *env, args []string) error {
	var o verifyOpts
	flags := newFlags(e, "verify", "FILE... [--oc OC|all] [--samples N] [--seed S] [--json]", verifyHelp)
	o.register(flags)
	files, err := parseFlags(flags, args)
	if err != nil {
		return err
	}
	switch {
	case len(files) == 0:
		return usagef("give one or more stencil files")
	case o.samples < 1:
		return usagef("--samples must be at least 1")
	case o.jobs < 0 || o.timeout <= 0:
		return usagef("--jobs and --timeout must be positive")
	}
	ocs, err := parseOCs(o.ocList)
	if err != nil {
		return usagef("--oc: %v", err)
	}
	gpu, err := limitsGPU(o.catFile, o.gpuName)
	if err != nil {
		return err
	}
	tools, err := cuda.FindTools()
	if err != nil {
		return err
	}
	variants, origin, skipped, err := o.sample(e, files, ocs, gpu)
	if err != nil {
		return err
	}
	bar := newProgress(e, "verify", len(variants))
	v := cuda.Verifier{Tools: tools, Jobs: o.jobs, Timeout: o.timeout, Seed: o.seed, Progress: func(done, _ int) { bar.Update(done) }}
	results, err := v.Verify(ctx, variants)
	var stopped error
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			return err
		}
		// Interrupted: report the variants that finished, then say so.
		var done []cuda.Result
		var from []verifyOrigin
		for i, r := range results {
			if r.Settled() {
				done, from = append(done, r), append(from, origin[i])
			}
		}
		stopped = fmt.Errorf("interrupted after %d of %d variants; the finished ones are listed above: %w", len(done), len(results), err)
		results, origin = done, from
	}
	return o.report(e, gpu, results, origin, skipped, stopped)
}

// sample draws the variants of every stencil file and OC, with the file each comes from;
// skipped says which stencils an OC has no setting for.
func (o *verifyOpts) sample(e *env, files []string, ocs []smart.Combination, gpu smart.GPU) (variants []cuda.Variant, origin []verifyOrigin, skipped []string, err error) {
	for i, f := range files {
		st, err := loadStencil(e, f, smart.Limits{MaxOrder: smart.MaxMaxOrder})
		if err != nil {
			return nil, nil, nil, err
		}
		for _, oc := range ocs {
			rng := rand.New(rand.NewPCG(o.seed, uint64(i)<<8|uint64(oc)))
			vs, err := cuda.Sample(st, oc, o.samples, gpu, rng)
			if errors.Is(err, cuda.ErrNoSetting) {
				skipped = append(skipped, fmt.Sprintf("%s: %v", f, err))
				continue
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("stencil file %s: %w", f, err)
			}
			for range vs {
				origin = append(origin, verifyOrigin{File: f, Name: st.Name, ID: st.ID()})
			}
			variants = append(variants, vs...)
		}
	}
	return variants, origin, skipped, nil
}

// report prints the results and fails where a variant failed or the run was stopped.
func (o *verifyOpts) report(e *env, gpu smart.GPU, results []cuda.Result, origin []verifyOrigin, skipped []string, stopped error) error {
	failed := 0
	for _, r := range results {
		if !r.OK() {
			failed++
		}
	}
	if o.asJSON {
		out := verifyOutput{GPU: gpu.Name, Seed: o.seed, Skipped: skipped, Failed: failed}
		for i, r := range results {
			out.Results = append(out.Results, verifyRow{verifyOrigin: origin[i], Result: r})
		}
		if err := writeJSON(e, out); err != nil {
			return err
		}
	} else {
		printVerifyTable(e, results, origin, skipped)
	}
	if stopped != nil {
		return stopped
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d variants failed verification", failed, len(results))
	}
	return nil
}

// verifyOrigin says which stencil file a verified variant comes from.
type verifyOrigin struct {
	File string `json:"file"`
	Name string `json:"name,omitempty"`
	ID   string `json:"id"` // of the stencil in the file; the verified copy has its own
}

type verifyRow struct {
	verifyOrigin
	cuda.Result
}

// MarshalJSON keeps the origin and the result side by side (both have an ID field).
func (r verifyRow) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Stencil verifyOrigin `json:"stencil"`
		cuda.Result
	}{r.verifyOrigin, r.Result})
}

type verifyOutput struct {
	GPU     string      `json:"gpu"` // whose limits bounded the settings
	Seed    uint64      `json:"seed"`
	Results []verifyRow `json:"results"`
	Failed  int         `json:"failed"`
	Skipped []string    `json:"skipped,omitempty"` // OCs without a valid setting on the verification grid
}

func printVerifyTable(e *env, results []cuda.Result, origin []verifyOrigin, skipped []string) {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STENCIL\tOC\tSETTING\tPTX\tCPU\tMAX REL ERR")
	failed := 0
	for i, r := range results {
		name := origin[i].Name
		if name == "" {
			name = origin[i].File
		}
		rel := fmt.Sprintf("%.1e", r.MaxRelErr)
		if r.CPU.Status != smart.StatusOK {
			rel = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, r.OC, r.Setting, r.PTX.Status, r.CPU.Status, rel)
		if !r.OK() {
			failed++
		}
	}
	tw.Flush()
	if failed > 0 {
		fmt.Fprintln(e.stdout, "\nFailures:")
		for i, r := range results {
			if !r.OK() {
				fmt.Fprintf(e.stdout, "  %s (%s): %s\n", origin[i].File, r.StencilID, r)
			}
		}
	}
	for _, s := range skipped {
		fmt.Fprintf(e.stdout, "skipped %s\n", s)
	}
	fmt.Fprintf(e.stdout, "%d variants: %d passed, %d failed", len(results), len(results)-failed, failed)
	if len(skipped) > 0 {
		// A pass says nothing of the OCs that were not run.
		fmt.Fprintf(e.stdout, "; %d OC-stencil pairs skipped, unverified (above)", len(skipped))
	}
	fmt.Fprintln(e.stdout)
}
