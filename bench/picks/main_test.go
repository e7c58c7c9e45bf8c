package main

import (
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedPicks checks the rows of the committed picks against figures computed from the
// files with a separate script (Python's csv and json modules).
func TestCommittedPicks(t *testing.T) {
	const m = "../../data/measured/"
	tests := []struct {
		picks string
		refs  []string
		rows  int
		basis map[string]string     // models -> basis of the pick
		want  map[string][2]float64 // stencil models -> pick/best, best of candidates/best
		// stencil models -> the candidate ranked first with analytic weights 0, 0.1 and 0.3,
		// measured, over the fastest candidate measured
		reranked map[string][3]float64
		// stencil models -> the first candidate keeping at most 64 bytes of local memory a
		// thread, measured, over the best random setting
		guarded map[string]float64
		summary map[string]summary // by models
		// own is the index in 0, 0.1, 0.3 of the analytic weight the predictions were ranked by
		// (predict's --json says analytic_weight): ranked again by it, the first is the pick.
		own int
	}{
		{
			picks: m + "h100-sxm/picks", refs: []string{m + "h100-sxm/classic", m + "h100-sxm/more"},
			rows:  12, // 6 stencils, 2 sets of models
			basis: map[string]string{"default": "simulated", "h100": "measured"},
			want: map[string][2]float64{
				"j3d7pt default":  {2.818, 1.817},
				"j3d7pt h100":     {1.291, 0.991},
				"j3d13pt default": {14.443, 10.013},
				"j2d9pt default":  {25.023, 25.023},
				"j2d9pt h100":     {1.671, 1.335},
				"j2d25pt h100":    {1.518, 1.105},
			},
		},
		{
			// The stencils the H100 models never saw: their random settings are the reference.
			picks: m + "h100-sxm/picks-new", refs: []string{m + "h100-sxm/random/*"},
			rows:  3,
			basis: map[string]string{"default": "measured"},
			want: map[string][2]float64{
				"j2d9pt-gol default": {0.9748, 0.9204},
				"j3d125pt default":   {1.2972, 1.2972},
				"j3d19pt default":    {1.0382, 1.0382},
			},
		},
		{
			// The H200 has no model of its own: the default is the H100's, transferred.
			picks: m + "h200/picks",
			refs:  []string{m + "h200/resample/*", m + "h200/random/*"},
			rows:  18, // 9 stencils, 2 sets of models
			basis: map[string]string{"default": "transfer", "simulated": "simulated"},
			want: map[string][2]float64{
				"j2d5pt default":     {1.1681, 1.1681},
				"j2d5pt simulated":   {3.0325, 2.3430},
				"j2d9pt default":     {1.1182, 0.9951},
				"j2d9pt-gol default": {1.0734, 0.9921},
				"j3d13pt simulated":  {5.0219, 1.6768},
				"j3d125pt default":   {1.2968, 1.2968},
				"j3d125pt simulated": {4.2828, 2.3430},
				"j3d27pt default":    {1.0061, 1.0061},
			},
		},
		{
			// The same after the H100's models were retrained with the three new stencils.
			picks: m + "h200/picks-v2",
			refs:  []string{m + "h200/resample/*", m + "h200/random/*"},
			rows:  9,
			basis: map[string]string{"default": "transfer"},
			want: map[string][2]float64{
				"j2d25pt default":  {1.0648, 1.0342},
				"j2d9pt default":   {1.1867, 0.9958},
				"j3d125pt default": {1.0273, 1.0273},
				"j3d13pt default":  {1.1560, 1.0569},
				"j3d19pt default":  {0.9971, 0.9971},
			},
		},
		{
			// The models with the usage columns: embedded (default) and leaving each stencil out.
			picks: m + "h100-sxm/picks-usage",
			refs:  []string{m + "h100-sxm/classic", m + "h100-sxm/more", m + "h100-sxm/random/*"},
			rows:  24,
			basis: map[string]string{"default": "measured", "h100": "measured"},
			want: map[string][2]float64{
				"j3d7pt default":  {2.1093, 1.3059},
				"j2d25pt default": {2.0711, 0.9836},
				"j3d7pt h100":     {1.3018, 1.3018},
			},
			reranked: map[string][3]float64{
				"j3d7pt default":  {1.6152, 1.0492, 1.0492},
				"j2d25pt default": {2.1057, 1.0475, 1},
				"j3d25pt default": {1.3572, 1.3572, 1.3572},
				"j2d13pt h100":    {1, 1, 1},
			},
			guarded: map[string]float64{"j2d25pt default": 1.0302, "j2d25pt h100": 1.0672, "j3d7pt default": 2.1093},
			summary: map[string]summary{
				"default": {models: "default", n: 12, within: 9, pick: 1.1551, candidates: 1.0154, guarded: 1.0898, guardedWithin: 10},
				"h100":    {models: "h100", n: 12, within: 10, pick: 1.0401, candidates: 1.0130, guarded: 1.0130, guardedWithin: 11},
			},
		},
		{
			// The models of the campaign's 69 stencils, candidates ranked by t^0.9 a^0.1; a
			// candidate of j3d7pt kept 456 bytes of local memory a thread.
			picks: m + "h100-sxm/picks-c69", own: 1,
			refs:  []string{m + "h100-sxm/classic", m + "h100-sxm/more", m + "h100-sxm/random/*"},
			rows:  24,
			basis: map[string]string{"default": "measured", "h100": "measured"},
			want: map[string][2]float64{
				"j3d7pt default":  {1.8712, 1.0764},
				"j2d25pt default": {1.3514, 1.0597},
			},
			guarded: map[string]float64{"j3d7pt default": 1.2642, "j3d7pt h100": 1.3340, "j2d25pt default": 1.3514},
			summary: map[string]summary{
				"default": {models: "default", n: 12, within: 10, pick: 1.0821, candidates: 1.0000, guarded: 1.0474, guardedWithin: 10},
				"h100":    {models: "h100", n: 12, within: 9, pick: 1.1088, candidates: 1.0500, guarded: 1.1088, guardedWithin: 9},
			},
		},
	}
	for _, tt := range tests {
		rows, err := run(tt.picks, tt.refs, []float64{0, 0.1, 0.3})
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != tt.rows {
			t.Fatalf("%s: %d rows, want %d", tt.picks, len(rows), tt.rows)
		}
		want := maps.Clone(tt.want)
		for _, r := range rows {
			if r.Basis != tt.basis[r.Models] {
				t.Errorf("%s %s %s: basis %q, want %q", tt.picks, r.Stencil, r.Models, r.Basis, tt.basis[r.Models])
			}
			if w, ok := tt.reranked[r.Stencil+" "+r.Models]; ok {
				for i := range w {
					if math.Abs(r.Reranked[i]-w[i]) > 5e-4 {
						t.Errorf("%s %s %s: reranked %v, want %v", tt.picks, r.Stencil, r.Models, r.Reranked, w)
						break
					}
				}
			}
			if w, ok := tt.guarded[r.Stencil+" "+r.Models]; ok && math.Abs(r.GuardedOverBest-w) > 5e-4 {
				t.Errorf("%s %s %s: guarded %.4f, want %.4f", tt.picks, r.Stencil, r.Models, r.GuardedOverBest, w)
			}
			if math.Abs(r.Reranked[tt.own]-r.PickOverBest/r.CandidatesOverBest) > 1e-9 {
				t.Errorf("%s %s %s: the predictions' own weight ranks %v first, not the pick (%v over %v)", tt.picks, r.Stencil, r.Models, r.Reranked[tt.own], r.PickOverBest, r.CandidatesOverBest)
			}
			w, ok := want[r.Stencil+" "+r.Models]
			if !ok {
				continue
			}
			delete(want, r.Stencil+" "+r.Models)
			if math.Abs(r.PickOverBest-w[0]) > 5e-4 || math.Abs(r.CandidatesOverBest-w[1]) > 5e-4 || r.Candidates != 3 {
				t.Errorf("%s %s %s: pick/best %.4f, candidates/best %.4f (%d); want %.4f, %.4f (3)", tt.picks, r.Stencil, r.Models,
					r.PickOverBest, r.CandidatesOverBest, r.Candidates, w[0], w[1])
			}
		}
		if len(want) > 0 {
			t.Errorf("%s: rows missing: %v", tt.picks, want)
		}
		if tt.summary != nil {
			for _, s := range summarize(rows) {
				w := tt.summary[s.models]
				if math.Abs(s.pick-w.pick) > 5e-4 || math.Abs(s.candidates-w.candidates) > 5e-4 || s.within != w.within || s.n != w.n ||
					math.Abs(s.guarded-w.guarded) > 5e-4 || s.guardedWithin != w.guardedWithin {
					t.Errorf("%s models %s: summary %+v, want %+v", tt.picks, s.models, s, w)
				}
			}
		}
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
	_, err = run(dir, []string{m + "classic"}, nil)
	if err == nil || !strings.Contains(err.Error(), "bx=999") || !strings.Contains(err.Error(), "not in the data set") {
		t.Fatalf("err = %v", err)
	}
}

// TestNoReference: a reference that names no data set is an error naming it.
// The data sets of a picks directory (its */rows.csv) as references: the picks measured there
// can only lower the best reference time.
func TestReferenceGlobKeepsDirectories(t *testing.T) {
	m := "../../data/measured/h100-sxm/"
	random := []string{m + "classic", m + "more", m + "random/*"}
	base, err := run(m+"picks-5a0", random, nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := run(m+"picks-5a0", append(random, m+"picks-5a0/*/rows.csv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	lower := 0
	for i := range base {
		if all[i].RandomBestMs > base[i].RandomBestMs {
			t.Errorf("%s: best reference %v with the picks, %v without", base[i].Stencil, all[i].RandomBestMs, base[i].RandomBestMs)
		}
		if all[i].RandomBestMs < base[i].RandomBestMs {
			lower++
		}
	}
	if lower == 0 {
		t.Error("no pick of picks-5a0 is faster than the random settings; the picks were not read")
	}
}

func TestNoReference(t *testing.T) {
	_, err := run("../../data/measured/h200/picks", []string{"../../data/measured/h200/nowhere/*"}, nil)
	if err == nil || !strings.Contains(err.Error(), "nowhere/*") {
		t.Fatalf("err = %v", err)
	}
}
