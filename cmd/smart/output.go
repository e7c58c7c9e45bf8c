package main

import (
	"encoding/json"
	"fmt"
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

// then is text followed by each of lines that is not empty, such as "wrote FILE" after a table.
func then(text func(io.Writer) error, lines ...string) func(io.Writer) error {
	return func(w io.Writer) error {
		err := text(w)
		for _, l := range lines {
			if l != "" && err == nil {
				_, err = fmt.Fprintln(w, l)
			}
		}
		return err
	}
}

// newProgress starts a bar on the command's stderr; its Label and Total may change as the work
// goes.
func newProgress(e *env, label string, total int) *progressbar.Bar {
	return progressbar.New(e.stderr, label, total, e.interactive, e.columns)
}

// resumedProgress is the callback of a run that resumes a data set: its first call, made before
// any work, counts the items already there, which the bar's rate and time left leave out.
func resumedProgress(bar *progressbar.Bar) func(done, total int) {
	first := true
	return func(done, _ int) {
		if first {
			bar.From, first = done, false
		}
		bar.Update(done)
	}
}

// lazyProgress is a progress callback whose bar is drawn from the first call, which brings the
// total; stop ends a bar that has not reached its total (the work failed or was interrupted).
func lazyProgress(e *env, label string) (update func(done, total int), stop func()) {
	var bar *progressbar.Bar
	update = func(done, total int) {
		if bar == nil {
			// What is done by the first report was done before the bar began: its rate and
			// time left count what follows (a bar begun at 1 of 4 showed millions a second).
			bar = newProgress(e, label, total)
			bar.From = done
		}
		bar.Update(done)
	}
	return update, func() {
		if bar != nil && bar.Done() < bar.Total {
			bar.Stop(bar.Done())
		}
	}
}

// streamed is the callback of a run over n stencils: it moves a bar where there are several,
// prints each result as a JSON line with --json (asJSON), and appends it to all.
func streamed[T any](e *env, label string, n int, asJSON bool, all *[]T) func(int, T) error {
	var bar *progressbar.Bar
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
