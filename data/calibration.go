package data

import (
	"bytes"
	_ "embed"
)

// calibration is the analytic stencil model's constants fitted to the measurements under
// data/measured (format smart-calibration/1, written by smart calibrate; its command field
// rebuilds it).
//
//go:embed calibration/stencil.json
var calibration []byte

// Calibration returns a copy of the embedded calibration file; package calibrate decodes it.
func Calibration() []byte { return bytes.Clone(calibration) }

// intervals holds the prediction intervals of the embedded runtime models, from their errors on
// measured stencils they were not trained on (format smart-intervals/1, written by
// bench/intervals).
//
//go:embed calibration/intervals.json
var intervals []byte

// Intervals returns a copy of the embedded intervals file; package calibrate decodes it.
func Intervals() []byte { return bytes.Clone(intervals) }
