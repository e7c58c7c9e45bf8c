// Package jsonout prints a bench program's report as JSON (its -json flag): indented, to
// standard output.
package jsonout

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Print writes v to standard output as JSON indented by two spaces. Where that fails it prints
// prefix (the program's name and a colon, as its other errors begin) and the error on standard
// error and exits with status 1.
func Print(prefix string, v any) {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, prefix, err)
		os.Exit(1)
	}
}

// Report prints a program's report v: as Print does with asJSON (its -json flag), else as text
// writes it to standard output.
func Report(prefix string, asJSON bool, v any, text func(io.Writer)) {
	if asJSON {
		Print(prefix, v)
		return
	}
	text(os.Stdout)
}
