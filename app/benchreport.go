package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"smart"
	"smart/dataset"
)

// DryRunReport counts the work of a Bench without running it.
type DryRunReport struct {
	Out       string         `json:"out"`
	GPU       string         `json:"gpu"`
	Stencils  int            `json:"stencils"`
	InShard   int            `json:"stencils_in_shard"`
	Shard     string         `json:"shard,omitempty"`
	Variants  int            `json:"variants"`
	Invalid   int            `json:"invalid"` // OCs with no valid setting, recorded without running
	Done      int            `json:"done"`    // already in the data set
	ToRun     int            `json:"to_run"`
	PerOC     map[string]int `json:"per_oc"`
	TornLine  int            `json:"torn_line,omitempty"`
	PlanSeed  uint64         `json:"seed"`
	PlanDraws int            `json:"samples"`

	ocs []smart.Combination // the plan's, in its order
}

// DryRun counts the variants of the shard, those the data set holds and those left to run.
func (bg *Benching) DryRun() (DryRunReport, error) {
	done, torn, err := bg.Done()
	if err != nil {
		return DryRunReport{}, err
	}
	plan := bg.Plan
	r := DryRunReport{Out: bg.bench.Out, GPU: bg.Backend.GPU.Name, Stencils: len(plan.Stencils), Variants: len(bg.Items), Done: done,
		ToRun: len(bg.Items) - done, PerOC: map[string]int{}, PlanSeed: plan.Seed, PlanDraws: plan.Samples, ocs: plan.OCs}
	inShard := map[string]bool{}
	for _, it := range bg.Items {
		inShard[it.Stencil.ID()] = true
		r.PerOC[it.OC.String()]++
		if it.Invalid != "" {
			r.Invalid++
		}
	}
	r.InShard = len(inShard)
	if bg.bench.Shard != nil {
		r.Shard = bg.bench.Shard.String()
	}
	if torn != nil {
		r.TornLine = torn.Line
	}
	return r, nil
}

// WriteText writes the counts, and the variants per OC as a table.
func (r DryRunReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "dry run: nothing measured, nothing written to %s\n", r.Out)
	fmt.Fprintf(w, "GPU %s; %d stencils", r.GPU, r.Stencils)
	if r.Shard != "" {
		fmt.Fprintf(w, ", %d in shard %s", r.InShard, r.Shard)
	}
	fmt.Fprintf(w, "; %d settings per OC, seed %d\n", r.PlanDraws, r.PlanSeed)
	fmt.Fprintf(w, "%d variants: %d already in the data set, %d to run", r.Variants, r.Done, r.ToRun)
	if r.Invalid > 0 {
		fmt.Fprintf(w, " (%d of them OCs with no valid setting, recorded as invalid)", r.Invalid)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OC\tvariants")
	for _, oc := range r.ocs {
		fmt.Fprintf(tw, "%s\t%d\n", oc, r.PerOC[oc.String()])
	}
	return tw.Flush()
}

// BenchReport is what a Bench's run measured.
type BenchReport struct {
	Out        string         `json:"out"`
	Source     smart.Source   `json:"source"`
	GPU        string         `json:"gpu"`
	Variants   int            `json:"variants"`
	Skipped    int            `json:"skipped"`
	Written    int            `json:"written"`
	ByStatus   map[string]int `json:"by_status"`
	Cut        map[string]int `json:"cut,omitempty"` // ok rows cut short, by cut
	Seconds    float64        `json:"seconds"`
	RowsPerSec float64        `json:"rows_per_second"`
	// Stopped says the run ended with variants left, by Bench.Time or (Error says so) an
	// interrupt or a failure; the same Bench resumes it.
	Stopped bool   `json:"stopped"`
	Error   string `json:"error,omitempty"` // what stopped the run early, where not Bench.Time
	// DrawingSeconds is how long this call drew the settings: it counts in Bench.Time, and a
	// drawing once begun finishes, saved for the next call, however long it takes.
	DrawingSeconds float64 `json:"drawing_seconds,omitempty"`

	sum dataset.Summary
}

// StoppedBy records err, which ended the run (nil: none): Stopped where variants are left, and
// the error, "interrupted" for a cancelled run.
func (r *BenchReport) StoppedBy(err error) {
	if err == nil {
		return
	}
	r.Stopped = r.Stopped || r.Skipped+r.Written < r.Variants
	r.Error = stopReason(err)
}

// stopReason is what a report says stopped a run: "interrupted" where it was cancelled (a
// Ctrl-C, a SIGTERM), else the error.
func stopReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return err.Error()
}

// Report is the report of s, the summary of bg's run.
func (bg *Benching) Report(s dataset.Summary) BenchReport {
	r := BenchReport{Out: bg.bench.Out, Source: bg.Backend.Source, GPU: bg.Backend.GPU.Name, Variants: s.Total, Skipped: s.Skipped,
		Written: s.Written, ByStatus: map[string]int{}, Seconds: s.Elapsed.Seconds(), Stopped: s.Stopped, DrawingSeconds: bg.drawing.Seconds(), sum: s}
	for st, n := range s.ByStatus {
		r.ByStatus[string(st)] = n
	}
	for c, n := range s.Cut {
		if r.Cut == nil {
			r.Cut = map[string]int{}
		}
		r.Cut[string(c)] = n
	}
	if s.Elapsed > 0 {
		r.RowsPerSec = float64(s.Written) / s.Elapsed.Seconds()
	}
	return r
}

// WriteText writes the rows written by status, the cuts, and the rate; not whether the run
// stopped early, which the caller words.
func (r BenchReport) WriteText(w io.Writer) error {
	s := r.sum
	fmt.Fprintf(w, "%s: %d of %d variants written (%s on %s), %d were already there\n", r.Out, s.Written, s.Total, r.Source, r.GPU, s.Skipped)
	var parts []string
	for _, st := range smart.Statuses() {
		if n := s.ByStatus[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", st, n))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "status: %s\n", strings.Join(parts, ", "))
	}
	if n := s.Cut[smart.CutSlow] + s.Cut[smart.CutStopped]; n > 0 {
		fmt.Fprintf(w, "cut short (far slower than the fastest so far): %d timed by their checked run, %d stopped after their first launch\n",
			s.Cut[smart.CutSlow], s.Cut[smart.CutStopped])
	}
	if s.ReadingErrors > 0 {
		fmt.Fprintf(w, "NVML readings failed for %d batches; their rows have none\n", s.ReadingErrors)
	}
	_, err := fmt.Fprintf(w, "%s, %.0f rows/s\n", s.Elapsed.Round(time.Millisecond), r.RowsPerSec)
	return err
}
