package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedPicks checks the rows of the committed H100 picks against figures computed from
// the files with a separate script (Python's csv and json modules).
func TestCommittedPicks(t *testing.T) {
	const m = "../../data/measured/h100-sxm/"
	rows, err := run(m+"picks", []string{m + "classic", m + "more"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 12 {
		t.Fatalf("%d rows, want 12 (6 stencils, 2 sets of models)", len(rows))
	}
	want := map[string][2]float64{ // stencil models -> pick/best, best of candidates/best
		"j3d7pt default":  {2.818, 1.817},
		"j3d7pt h100":     {1.291, 0.991},
		"j3d13pt default": {14.443, 10.013},
		"j2d9pt default":  {25.023, 25.023},
		"j2d9pt h100":     {1.671, 1.335},
		"j2d25pt h100":    {1.518, 1.105},
	}
	for _, r := range rows {
		w, ok := want[r.Stencil+" "+r.Models]
		if !ok {
			continue
		}
		delete(want, r.Stencil+" "+r.Models)
		if math.Abs(r.PickOverBest-w[0]) > 5e-4 || math.Abs(r.CandidatesOverBest-w[1]) > 5e-4 || r.Candidates != 3 {
			t.Errorf("%s %s: pick/best %.4f, candidates/best %.4f (%d); want %.3f, %.3f (3)", r.Stencil, r.Models,
				r.PickOverBest, r.CandidatesOverBest, r.Candidates, w[0], w[1])
		}
		if (r.Models == "default") != (r.Basis == "simulated") {
			t.Errorf("%s %s: basis %q", r.Stencil, r.Models, r.Basis)
		}
	}
	if len(want) > 0 {
		t.Errorf("rows missing: %v", want)
	}
}

// TestPickNotMeasured: a prediction whose setting the data set lacks is an error naming both.
func TestPickNotMeasured(t *testing.T) {
	const m = "../../data/measured/h100-sxm/"
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "j3d7pt"), os.DirFS(m+"picks/j3d7pt")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(m + "picks/j3d7pt-h100.json")
	if err != nil {
		t.Fatal(err)
	}
	// The pick's block width changed: a setting the data set does not hold.
	b = []byte(strings.Replace(string(b), `"bx": 64`, `"bx": 999`, 1))
	if err := os.WriteFile(filepath.Join(dir, "j3d7pt-h100.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = run(dir, []string{m + "classic"})
	if err == nil || !strings.Contains(err.Error(), "bx=999") || !strings.Contains(err.Error(), "not in the data set") {
		t.Fatalf("err = %v", err)
	}
}
