package main

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// TestCompareExact: estimates that are B's times exactly score perfectly; A's own times, off by
// a known factor, score by hand.
func TestCompareExact(t *testing.T) {
	// B runs every setting at 0.8 of A, which the analytic ratio says; the copy ratio says 0.5.
	ps := []pair{{a: 1, b: 0.8, ratio: 0.8}, {a: 2, b: 1.6, ratio: 0.8}, {a: 4, b: 3.2, ratio: 0.8}}
	r := compare(ps, 0.5)
	if r.N != 3 || r.Spearman != 1 || r.RatioMedian != 0.8 || r.RatioMin != 0.8 || r.RatioMax != 0.8 {
		t.Errorf("row %+v", r)
	}
	if r.Analytic.MAPE > 1e-12 || r.Analytic.Spearman != 1 || r.Analytic.PickShare != 1 {
		t.Errorf("analytic %+v, want perfect", r.Analytic)
	}
	// A's times are 1/0.8 of B's: 25% off each; halved, 37.5% off.
	if math.Abs(r.Same.MAPE-25) > 1e-9 || math.Abs(r.Copy.MAPE-37.5) > 1e-9 {
		t.Errorf("MAPE same %v, copy %v; want 25, 37.5", r.Same.MAPE, r.Copy.MAPE)
	}
}

// TestCompareReorder: a ratio that reorders the settings moves the pick.
func TestCompareReorder(t *testing.T) {
	// On B the second setting is the faster; A says the first; the ratio sees it.
	ps := []pair{{a: 1, b: 2, ratio: 2}, {a: 1.5, b: 1, ratio: 0.6}}
	r := compare(ps, 1)
	if r.Spearman != -1 || r.Same.PickShare != 0.5 || r.Analytic.PickShare != 1 || r.Analytic.Spearman != 1 {
		t.Errorf("row %+v", r)
	}
}

// TestCommitted checks the H100 -> H200 rows against figures computed from the data sets with a
// separate script (Python's csv module; the median is the lower middle, as gonum's Empirical
// quantile takes it).
func TestCommitted(t *testing.T) {
	const m = "../../data/measured/"
	rep, err := run([]string{m + "h100-sxm/classic", m + "h100-sxm/more", m + "h100-sxm/random/*"},
		[]string{m + "h200/resample/*", m + "h200/random/*"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.From != "H100-SXM" || rep.To != "H200" || math.Abs(rep.FromCopy-3002.365) > 1e-9 || math.Abs(rep.ToCopy-4245.784) > 1e-9 {
		t.Errorf("report %s %v -> %s %v", rep.From, rep.FromCopy, rep.To, rep.ToCopy)
	}
	if len(rep.Stencils) != 9 {
		t.Fatalf("%d stencils, want 9", len(rep.Stencils))
	}
	want := map[string]struct {
		n                            int
		spearman, med, lo, hi        float64
		mapeSame, mapeCopy, pickSame float64
	}{
		"j3d7pt":     {65, 0.9868, 0.8341, 0.6360, 1.0250, 21.742, 15.399, 0.9726},
		"j3d19pt":    {300, 0.9920, 0.9451, 0.6133, 1.0399, 13.442, 20.645, 0.9184},
		"j2d9pt-gol": {300, 0.9905, 0.8854, 0.6497, 1.0236, 14.797, 19.200, 1.0000},
		"j3d27pt":    {64, 0.9853, 0.9460, 0.6411, 1.0119, 13.861, 20.525, 0.8090},
	}
	for _, r := range rep.Stencils {
		w, ok := want[r.Stencil]
		if !ok {
			continue
		}
		delete(want, r.Stencil)
		near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
		if r.N != w.n || !near(r.Spearman, w.spearman, 1e-4) || !near(r.RatioMedian, w.med, 1e-4) ||
			!near(r.RatioMin, w.lo, 1e-4) || !near(r.RatioMax, w.hi, 1e-4) || !near(r.Same.MAPE, w.mapeSame, 1e-3) ||
			!near(r.Copy.MAPE, w.mapeCopy, 1e-3) || !near(r.Same.PickShare, w.pickSame, 1e-4) {
			t.Errorf("%s: %+v, want %+v", r.Stencil, r, w)
		}
		if r.Analytic.MAPE <= 0 || r.Analytic.Spearman <= 0.9 || r.Analytic.PickShare <= 0 || r.Analytic.PickShare > 1 {
			t.Errorf("%s: analytic %+v", r.Stencil, r.Analytic)
		}
	}
	if len(want) > 0 {
		t.Errorf("stencils missing: %v", want)
	}
}

func TestRunErrors(t *testing.T) {
	const m = "../../data/measured/"
	for _, tt := range []struct {
		from, to []string
		want     string
	}{
		{[]string{m + "nowhere/*"}, []string{m + "h200/random/*"}, "names no data set"},
		// The same GPU on both sides, other stencils: nothing joins.
		{[]string{m + "h100-sxm/classic"}, []string{m + "h100-sxm/random/*"}, "no setting is measured ok on both"},
		// Two GPUs on one side.
		{[]string{m + "h100-sxm/classic", m + "h200/random/j3d19pt"}, []string{m + "h200/resample/*"}, "give each GPU's data sets on their own side"},
	} {
		if _, err := run(tt.from, tt.to); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("run(%v, %v) = %v, want %q", tt.from, tt.to, err, tt.want)
		}
	}
}

// TestRunLeavesOutBegun: the campaign's stencils only begun on the H200 (a handful of settings,
// one for rand3d-o3-s1-0018, whose rank correlation was NaN and spoiled the mean's) are left
// out and named; every stencil scored has minPaired settings or more.
func TestRunLeavesOutBegun(t *testing.T) {
	rep, err := run([]string{"../../data/measured/h100-sxm/campaign"}, []string{"../../data/measured/h200/campaign"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Begun, "rand3d-o3-s1-0018") {
		t.Errorf("left out %v; want rand3d-o3-s1-0018 among them", rep.Begun)
	}
	for _, r := range rep.Stencils {
		if r.N < minPaired {
			t.Errorf("%s scored on %d settings; want at least %d", r.Stencil, r.N, minPaired)
		}
	}
	if math.IsNaN(rep.Mean.Spearman) || math.IsNaN(rep.Mean.Analytic.Spearman) {
		t.Errorf("mean rank correlations %v, %v; want numbers", rep.Mean.Spearman, rep.Mean.Analytic.Spearman)
	}
}
