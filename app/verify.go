package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"smart"
	"smart/dataset/cuda"
	"smart/generator"
)

// Verify checks the generated CUDA kernels of stencil files without a GPU: Samples random
// settings per stencil and combination, compiled with clang and run on the CPU against a
// reference (cuda.Verifier).
type Verify struct {
	Files   []string // stencil files, "-" for Stdin, or embedded sample names
	Stdin   io.Reader
	OCs     []smart.Combination
	Samples int       // settings per stencil and combination
	Seed    uint64    // of the settings and the input data
	GPU     smart.GPU // whose limits bound the settings
	Jobs    int       // batches at once; 0: the number of CPUs
	Timeout time.Duration
	// Progress, when set, gets the variants done.
	Progress func(done, total int)
}

// Check refuses no stencils, no settings, a negative number of jobs and a time limit that is
// not positive, each a *SettingError of its field.
func (v Verify) Check() error {
	switch {
	case len(v.Files) == 0:
		return wrong("Files", "", "give one or more stencil files")
	case v.Samples < 1:
		return wrong("Samples", fmt.Sprint(v.Samples), "draw at least 1 setting per stencil and combination")
	case v.Jobs < 0:
		return wrong("Jobs", fmt.Sprint(v.Jobs), "must not be negative (0: one per CPU)")
	case v.Timeout <= 0:
		return wrong("Timeout", v.Timeout.String(), "must be positive")
	}
	return nil
}

// Run checks v, finds the tools, loads the stencils, draws the variants and verifies them;
// total counts the variants. Where ctx is cancelled during the runs, the report holds the
// variants that finished and the error is context.Canceled.
func (v Verify) Run(ctx context.Context) (report *cuda.Report, total int, err error) {
	if err := v.Check(); err != nil {
		return nil, 0, err
	}
	tools, err := cuda.FindTools()
	if err != nil {
		return nil, 0, err
	}
	stencils := make([]*smart.Stencil, len(v.Files))
	for i, f := range v.Files {
		if stencils[i], err = generator.Load(f, v.Stdin, smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
			return nil, 0, err
		}
	}
	variants, origin, skipped, fewer, err := cuda.SampleFiles(ctx, v.Files, stencils, v.OCs, v.Samples, v.GPU, v.Seed)
	if err != nil {
		return nil, 0, err
	}
	verifier := cuda.Verifier{Tools: tools, Jobs: v.Jobs, Timeout: v.Timeout, Seed: v.Seed, Progress: v.Progress}
	results, err := verifier.Verify(ctx, variants)
	if err != nil && !errors.Is(err, context.Canceled) {
		return nil, 0, err
	}
	report = cuda.NewReport(v.GPU.Name, v.Seed, results, origin, skipped)
	report.Fewer = fewer
	return report, len(results), err
}
