package main

import (
	"encoding/json"
	"io"
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
