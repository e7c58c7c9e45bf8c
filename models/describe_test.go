package models

import (
	"path/filepath"
	"testing"
)

func TestSourceCounts(t *testing.T) {
	tests := []struct {
		counts map[string]int
		want   string
	}{
		{nil, "no measurements"},
		{map[string]int{"simulated": 5}, "5 simulated measurements"},
		// a fixed order, whatever the map's
		{map[string]int{"predicted": 1, "simulated": 2, "imported": 3, "measured": 4}, "4 measured, 3 imported, 2 simulated, 1 predicted measurements"},
	}
	for _, tt := range tests {
		if got := SourceCounts(tt.counts); got != tt.want {
			t.Errorf("SourceCounts(%v) = %q, want %q", tt.counts, got, tt.want)
		}
	}
}

func TestHeaderTrainingData(t *testing.T) {
	h := Header{Data: []DataRef{
		{Path: "runs/a", Rows: 10, Sources: map[string]int{"measured": 10}, GPUs: []string{"V100"}},
		{Path: filepath.Join(t.TempDir(), "b"), Rows: 2, Sources: map[string]int{"simulated": 20}, GPUs: []string{"A100", "T4"},
			Constants: []string{"the literature's constants", "the constants of calibration cal.json (sha256 0123456789ab)"}},
	}}
	want := "runs/a (10 rows; 10 measured measurements; GPUs V100), " + h.Data[1].Path + " (2 rows; 20 simulated measurements; GPUs A100,T4; " +
		"simulated with the literature's constants and the constants of calibration cal.json (sha256 0123456789ab))"
	if got := h.TrainingData(); got != want {
		t.Errorf("TrainingData = %q, want %q", got, want)
	}
	abs, err := filepath.Abs("runs/a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dirs []string
		want string
	}{
		{[]string{"runs/c"}, ""},
		{[]string{"runs/c", abs}, abs}, // the same directory written another way
		{[]string{"runs/a/", h.Data[1].Path}, "runs/a/, " + h.Data[1].Path},
	}
	// The embedded models record their data relative to data/measured, some as patterns.
	h.Data = append(h.Data, DataRef{Path: "h100-sxm/classic"}, DataRef{Path: "measured/h200/random/*+measured/h200/picks*/*/rows.csv"})
	tests = append(tests, []struct {
		dirs []string
		want string
	}{
		{[]string{"data/measured/h100-sxm/classic", "data/measured/h100-sxm/classics", "h100-sxm/classic/x"}, "data/measured/h100-sxm/classic"},
		{[]string{"data/measured/h200/random/j3d7pt", "data/measured/h200/random", "/tmp/copy/measured/h200/picks-b/j3d7pt"}, "data/measured/h200/random/j3d7pt, /tmp/copy/measured/h200/picks-b/j3d7pt"},
		{[]string{"data/measured/h200/campaign", "h200/random/j3d7pt"}, ""},
	}...)
	for _, tt := range tests {
		if got := h.TrainedOn(tt.dirs, nil); got != tt.want {
			t.Errorf("TrainedOn(%q) = %q, want %q", tt.dirs, got, tt.want)
		}
	}
	// A copy, or a path relative to another directory, is known by its data set's ID.
	h.Data[0].ID = "id-a"
	ids := map[string]string{"elsewhere/a-copy": "id-a", "runs/c": "id-c"}
	if got := h.TrainedOn([]string{"runs/c", "elsewhere/a-copy"}, func(d string) string { return ids[d] }); got != "elsewhere/a-copy" {
		t.Errorf("by ID: %q; want the copy", got)
	}
}
