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
	"smart/space"
)

// Verify checks the generated CUDA kernels of stencil files without a GPU: Samples random
// settings per stencil and combination, or the one Setting given, compiled with clang and run
// on the CPU against a reference (cuda.Verifier).
type Verify struct {
	Files   []string // stencil files, "-" for Stdin, or embedded sample names
	Stdin   io.Reader
	OCs     []smart.Combination
	Samples int // settings per stencil and combination; unused with Setting
	// Setting, when not "", is the setting k=v,... of the one combination in OCs verified on
	// each stencil's small copy in place of drawn ones: a setting made for the real grid (by
	// predict, tune or codegen), which the small copy's space need not hold.
	Setting string
	Seed    uint64    // of the settings and the input data
	GPU     smart.GPU // whose limits bound the settings, drawn or given
	Jobs    int       // batches at once; 0: the number of CPUs
	Timeout time.Duration
	// Progress, when set, gets the variants done.
	Progress func(done, total int)
}

// Check refuses no stencils, no settings, a setting given with other than one combination or
// not of the form k=v,..., a negative number of jobs and a time limit that is not positive,
// each a *SettingError of its field.
func (v Verify) Check() error {
	switch {
	case len(v.Files) == 0:
		return wrong("Files", "", "give one or more stencil files")
	case v.Setting == "" && v.Samples < 1:
		return wrong("Samples", fmt.Sprint(v.Samples), "draw at least 1 setting per stencil and combination")
	case v.Setting != "" && len(v.OCs) != 1:
		return wrong("OCs", "", "a setting is of one optimization combination; give that one (%d given)", len(v.OCs))
	case v.Jobs < 0:
		return wrong("Jobs", fmt.Sprint(v.Jobs), "must not be negative (0: one per CPU)")
	case v.Timeout <= 0:
		return wrong("Timeout", v.Timeout.String(), "must be positive")
	}
	if _, err := smart.ParseSetting(v.Setting); v.Setting != "" && err != nil {
		return &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	return nil
}

// Run checks v, loads the stencils, finds the tools, draws the variants (or takes Setting's)
// and verifies them; total counts the variants. Where ctx is cancelled during the runs, the
// report holds the variants that finished and the error is context.Canceled.
func (v Verify) Run(ctx context.Context) (report *cuda.Report, total int, err error) {
	if err := v.Check(); err != nil {
		return nil, 0, err
	}
	stencils := make([]*smart.Stencil, len(v.Files))
	for i, f := range v.Files {
		if stencils[i], err = generator.Load(f, v.Stdin, smart.Limits{MaxOrder: smart.MaxMaxOrder}); err != nil {
			return nil, 0, err
		}
	}
	var (
		variants       []cuda.Variant
		origin         []cuda.Origin
		skipped, fewer []string
	)
	// A setting given is refused before the tools are looked for: the caller's to change.
	if v.Setting != "" {
		if variants, origin, err = v.given(ctx, stencils); err != nil {
			return nil, 0, err
		}
	}
	tools, err := cuda.FindTools()
	if err != nil {
		return nil, 0, err
	}
	if v.Setting == "" {
		variants, origin, skipped, fewer, err = cuda.SampleFiles(ctx, v.Files, stencils, v.OCs, v.Samples, v.GPU, v.Seed)
		if err != nil {
			return nil, 0, err
		}
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

// given returns the variant of Setting under the one combination of OCs on each stencil's
// small copy (cuda.SmallCopy), the copy run for cuda.VerifySteps. A setting that does not
// decode for a stencil, exceeds the GPU's limits or cannot be generated on the small grid is a
// *SettingError of Setting naming the stencil's file and why, as is one outside the stencil's
// space on its own grid (what codegen refuses: no pass may vouch for a kernel nothing
// generates). A tile larger than the small grid is generated and checked as one partial tile
// along that axis, as on a real grid's edge.
func (v Verify) given(ctx context.Context, stencils []*smart.Stencil) ([]cuda.Variant, []cuda.Origin, error) {
	oc := v.OCs[0]
	set, err := smart.ParseSetting(v.Setting)
	if err != nil {
		return nil, nil, &SettingError{Field: "Setting", Err: err, Wrong: true}
	}
	var variants []cuda.Variant
	var origin []cuda.Origin
	for i, st := range stencils {
		refuse := func(format string, args ...any) error {
			return wrong("Setting", "", "stencil file %s: %s", v.Files[i], fmt.Sprintf(format, args...))
		}
		if err := space.CheckStencilSetting(ctx, st, oc, v.GPU, set); err != nil {
			return nil, nil, refuse("%v", err)
		}
		t, err := smart.DecodeTuning(st.Dims, oc, set)
		if err != nil {
			return nil, nil, refuse("%v", err)
		}
		small := cuda.SmallCopy(st)
		small.Steps = cuda.VerifySteps(t)
		if _, err := cuda.Generate(small, t); err != nil {
			return nil, nil, refuse("cannot be generated for the %s verification grid: %v", small.GridText(), err)
		}
		variants = append(variants, cuda.Variant{Stencil: small, OC: oc, Setting: set})
		origin = append(origin, cuda.Origin{File: v.Files[i], Name: st.Name, ID: st.ID()})
	}
	return variants, origin, nil
}
