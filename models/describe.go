package models

import (
	"fmt"
	"path/filepath"
	"strings"
)

// SourceCounts says how many measurements of each source a count per source holds, e.g.
// "300 measured, 20 simulated measurements".
func SourceCounts(m map[string]int) string {
	var parts []string
	for _, k := range []string{"measured", "imported", "simulated", "predicted"} {
		if n, ok := m[k]; ok {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "no measurements" // a data set the dimensions filter left nothing of
	}
	return strings.Join(parts, ", ") + " measurements"
}

// TrainingData says what the model was trained on: each data set with its rows, sources and GPUs.
func (h Header) TrainingData() string {
	var parts []string
	for _, d := range h.Data {
		parts = append(parts, fmt.Sprintf("%s (%d rows; %s; GPUs %s)", d.Path, d.Rows, SourceCounts(d.Sources), strings.Join(d.GPUs, ",")))
	}
	return strings.Join(parts, ", ")
}

// TrainedOn returns those of dirs the model was trained on, comma-separated, or "": scores on
// them are in-sample.
func (h Header) TrainedOn(dirs []string) string {
	var both []string
	for _, d := range dirs {
		a, _ := filepath.Abs(d)
		for _, ref := range h.Data {
			if b, _ := filepath.Abs(ref.Path); a == b {
				both = append(both, d)
			}
		}
	}
	return strings.Join(both, ", ")
}
