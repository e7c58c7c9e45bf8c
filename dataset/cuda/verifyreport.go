package cuda

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"text/tabwriter"

	"smart"
)

// Origin says which stencil file a verified variant comes from.
type Origin struct {
	File string `json:"file"`
	Name string `json:"name,omitempty"`
	ID   string `json:"id"` // of the stencil in the file; the verified copy has its own
}

// SampleFiles draws n variants of every stencil under every OC, the stencils read from files
// (files[i] holds stencils[i]), each with the file it comes from. skipped says which stencils
// an OC has no setting for (ErrNoSetting), fewer which it has fewer than n settings for (all of
// them drawn). The draws depend on seed, the stencil's index and the OC only. Once ctx is done it
// stops between stencils and OCs, with an error that wraps ctx.Err().
func SampleFiles(ctx context.Context, files []string, stencils []*smart.Stencil, ocs []smart.Combination, n int, gpu smart.GPU, seed uint64) (variants []Variant, origin []Origin, skipped, fewer []string, err error) {
	for i, st := range stencils {
		for _, oc := range ocs {
			if err := ctx.Err(); err != nil {
				return nil, nil, nil, nil, fmt.Errorf("drawing the variants to verify: stopped at %s under %s (stencil %d of %d): %w", files[i], oc, i+1, len(stencils), err)
			}
			rng := rand.New(rand.NewPCG(seed, uint64(i)<<8|uint64(oc)))
			vs, err := Sample(st, oc, n, gpu, rng)
			if errors.Is(err, ErrNoSetting) {
				skipped = append(skipped, fmt.Sprintf("%s: %v", files[i], err))
				continue
			}
			if err != nil {
				return nil, nil, nil, nil, fmt.Errorf("stencil file %s: %w", files[i], err)
			}
			if len(vs) < n {
				fewer = append(fewer, fmt.Sprintf("%s: %s has only %d settings on the verification grid: all verified", files[i], oc, len(vs)))
			}
			for range vs {
				origin = append(origin, Origin{File: files[i], Name: st.Name, ID: st.ID()})
			}
			variants = append(variants, vs...)
		}
	}
	return variants, origin, skipped, fewer, nil
}

// Report is the verification of variants drawn from stencil files.
type Report struct {
	GPU     string      `json:"gpu"` // whose limits bounded the settings
	Seed    uint64      `json:"seed"`
	Results []ReportRow `json:"results"`
	Failed  int         `json:"failed"`
	Skipped []string    `json:"skipped,omitempty"` // OCs without a valid setting on the verification grid
	Fewer   []string    `json:"fewer,omitempty"`   // OCs with fewer settings there than asked for: all verified
}

// ReportRow is a variant's result with the file it comes from.
type ReportRow struct {
	Origin
	Result
}

// MarshalJSON keeps the origin and the result side by side (both have an ID field). A CPU
// check that compared nothing (a compile or launch error, a timeout, an overflowing reference)
// has no relative error: null, not 0, which would read as an exact match.
func (r ReportRow) MarshalJSON() ([]byte, error) {
	res := r.Result
	if st := res.CPU.Status; st != smart.StatusOK && st != smart.StatusWrongResult {
		res.MaxRelErr = RelErr(math.NaN())
	}
	return json.Marshal(struct {
		Stencil Origin `json:"stencil"`
		Result
	}{r.Origin, res})
}

// NewReport pairs results[i] with origin[i]; only the settled results are kept (Verify
// returns unsettled ones when stopped).
func NewReport(gpu string, seed uint64, results []Result, origin []Origin, skipped []string) *Report {
	r := &Report{GPU: gpu, Seed: seed, Skipped: skipped, Results: []ReportRow{}}
	for i, res := range results {
		if !res.Settled() {
			continue
		}
		r.Results = append(r.Results, ReportRow{origin[i], res})
		if !res.OK() {
			r.Failed++
		}
	}
	return r
}

// Err says how many variants failed, or that none was verified (every one asked for was
// skipped), or is nil: a check that checked nothing has not passed.
func (r *Report) Err() error {
	switch {
	case r.Failed > 0:
		return fmt.Errorf("%d of %d variants failed verification", r.Failed, len(r.Results))
	case len(r.Results) == 0:
		return fmt.Errorf("no variant was verified: %d stencil and OC pairs were skipped, none had a setting to check", len(r.Skipped))
	}
	return nil
}

// WriteTable writes a line per variant, the failures in full, the skipped OCs and a count.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STENCIL\tOC\tSETTING\tPTX\tCPU\tMAX REL ERR")
	for _, row := range r.Results {
		name := row.Name
		if name == "" {
			name = row.File
		}
		rel := fmt.Sprintf("%.1e", row.MaxRelErr)
		if row.CPU.Status != smart.StatusOK {
			rel = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, row.OC, row.Setting, row.PTX.Status, row.CPU.Status, rel)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Failed > 0 {
		fmt.Fprintln(w, "\nFailures:")
		for _, row := range r.Results {
			if !row.OK() {
				fmt.Fprintf(w, "  %s (%s): %s\n", row.File, row.StencilID, row.Result)
			}
		}
	}
	for _, s := range r.Fewer {
		fmt.Fprintf(w, "note: %s\n", s)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	fmt.Fprintf(w, "%d variants: %d passed, %d failed", len(r.Results), len(r.Results)-r.Failed, r.Failed)
	if len(r.Skipped) > 0 {
		// A pass says nothing of the OCs that were not run.
		fmt.Fprintf(w, "; %d OC-stencil pairs skipped, unverified (above)", len(r.Skipped))
	}
	_, err := fmt.Fprintln(w)
	return err
}
