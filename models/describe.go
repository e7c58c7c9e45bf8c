package models

import (
	"fmt"
	"path"
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
		about := fmt.Sprintf("%s (%d rows; %s; GPUs %s", d.Path, d.Rows, SourceCounts(d.Sources), strings.Join(d.GPUs, ","))
		if w := d.SimulatedWith(); w != "" {
			about += "; " + w
		}
		parts = append(parts, about+")")
	}
	return strings.Join(parts, ", ")
}

// SimulatedWith says which constants of the analytic model simulated the data set's rows
// ("simulated with ..."), or "" where it records none.
func (d DataRef) SimulatedWith() string {
	if len(d.Constants) == 0 {
		return ""
	}
	return "simulated with " + strings.Join(d.Constants, " and ")
}

// TrainedOn returns those of dirs the model was trained on, comma-separated, or "": scores on
// them are in-sample. A directory is one the model read where its ID (id, which says what a
// data set is wherever it lies: a copy has its original's) is a DataRef's, or else where its
// path resolves to a DataRef's from here (a relative path resolves as it was given only from
// the directory the model was trained in), or where its last components match a relative
// DataRef path or pattern (the embedded models record theirs relative to data/measured, some
// as globs joined by "+": "h100-sxm/classic", "measured/h200/random/*").
func (h Header) TrainedOn(dirs []string, id func(dir string) string) string {
	var both []string
	for _, d := range dirs {
		a, _ := filepath.Abs(d)
		did := ""
		if id != nil {
			did = id(d)
		}
		for _, ref := range h.Data {
			b, _ := filepath.Abs(ref.Path)
			if a == b || did != "" && did == ref.ID || endsLike(a, ref.Path) {
				both = append(both, d)
				break
			}
		}
	}
	return strings.Join(both, ", ")
}

// endsLike says whether the absolute directory dir ends with one of the relative paths or glob
// patterns that ref joins with "+" (a pattern's final rows.csv names the data set's file).
func endsLike(dir, ref string) bool {
	if ref == "" || filepath.IsAbs(ref) {
		return false
	}
	have := strings.Split(filepath.ToSlash(dir), "/")
	for _, part := range strings.Split(ref, "+") {
		want := strings.Split(strings.TrimSuffix(filepath.ToSlash(filepath.Clean(part)), "/rows.csv"), "/")
		if want[0] == "." || want[0] == ".." || len(want) > len(have) {
			continue
		}
		tail := have[len(have)-len(want):]
		match := true
		for i, w := range want {
			if ok, err := path.Match(w, tail[i]); err != nil || !ok {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
