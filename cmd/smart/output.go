package main

import (
	"encoding/json"
	"io"

	"smart/internal/progressbar"
)

// writeJSON writes v to stdout as one line of JSON: --json output is JSON Lines, one document
// per line (docs/commands.md), so that a command that answers stencil by stencil can stream and
// any command's output parses with a JSON Lines reader, and a one-line output with any reader.
func writeJSON(e *env, v any) error {
	return json.NewEncoder(e.stdout).Encode(v)
}

// printOut prints v as one line of JSON with --json (asJSON), else as text writes it.
func printOut(e *env, asJSON bool, v any, text func(io.Writer) error) error {
	if asJSON {
		return writeJSON(e, v)
	}
	return text(e.stdout)
}

// progress is the bar a command draws on stderr; label and total pass to the bar at each
// update, for the commands that change them as the work goes.
type progress struct {
	label string
	total int
	bar   *progressbar.Bar
}

func newProgress(e *env, label string, total int) *progress {
	return &progress{label, total, progressbar.New(e.stderr, label, total, e.interactive, e.columns)}
}

// Update is progressbar.Bar.Update.
func (p *progress) Update(done int) {
	p.bar.Label, p.bar.Total = p.label, p.total
	p.bar.Update(done)
}

// Stop is progressbar.Bar.Stop.
func (p *progress) Stop(done int) {
	p.bar.Label, p.bar.Total = p.label, p.total
	p.bar.Stop(done)
}

// Done is progressbar.Bar.Done.
func (p *progress) Done() int { return p.bar.Done() }

// lazyProgress is a progress callback whose bar is drawn from the first call, which brings the
// total.
func lazyProgress(e *env, label string) func(done, total int) {
	var bar *progress
	return func(done, total int) {
		if bar == nil {
			bar = newProgress(e, label, total)
		}
		bar.Update(done)
	}
}

// streamed is the callback of a run over n stencils: it moves a bar where there are several,
// prints each result as a JSON line with --json (asJSON), and appends it to all.
func streamed[T any](e *env, label string, n int, asJSON bool, all *[]T) func(int, T) error {
	var bar *progress
	if n > 1 {
		bar = newProgress(e, label, n)
	}
	return func(i int, v T) error {
		if bar != nil {
			bar.Update(i + 1)
		}
		*all = append(*all, v)
		if asJSON {
			return writeJSON(e, v)
		}
		return nil
	}
}
