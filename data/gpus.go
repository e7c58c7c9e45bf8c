// Package data embeds the defaults shipped in the binary.
package data

import (
	"bytes"
	_ "embed"
)

//go:embed gpus.json
var gpusJSON []byte

// GPUs returns the embedded GPU catalogue (gpus.json, format "smart-gpus/1"). Package catalog
// parses, validates and resolves it. The slice is a copy the caller may keep or change.
func GPUs() []byte { return bytes.Clone(gpusJSON) }
