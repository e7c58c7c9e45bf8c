package data

import (
	"bytes"
	_ "embed"
)

// fastest is the fastest variant of each stencil measured in full on each GPU over the data sets
// under data/measured (format smart-fastest/1, written by smart dataset fastest):
//
//go:generate go run ../cmd/smart dataset fastest -o measured/fastest.json measured/*/*/rows.csv measured/*/*/*/rows.csv
//go:embed measured/fastest.json
var fastest []byte

// Fastest returns a copy of the embedded file of fastest measured variants; package dataset decodes it.
func Fastest() []byte { return bytes.Clone(fastest) }
