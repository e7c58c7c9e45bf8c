package main

import (
	"context"
	"math"
	"testing"

	"smart"
	"smart/dataset"
	"smart/predict"
)

func TestAccuracy(t *testing.T) {
	var vs []*variant
	for _, ms := range []float64{1, 2, 4, 8} {
		vs = append(vs, &variant{m: smart.Measurement{TimeMs: ms}})
	}
	exact := accuracy("exact", vs, func(v *variant) float64 { return v.m.TimeMs })
	if exact.MAPE != 0 || exact.Spearman != 1 || exact.PickShare != 1 || exact.MedianRatio != 1 {
		t.Errorf("exact estimates: %+v", exact)
	}
	// Half the time: every error 50%, the order kept.
	half := accuracy("half", vs, func(v *variant) float64 { return v.m.TimeMs / 2 })
	if math.Abs(half.MAPE-50) > 1e-12 || half.Spearman != 1 || half.MedianRatio != 0.5 {
		t.Errorf("half estimates: %+v", half)
	}
	// Reversed: ranks reversed, the pick is the slowest.
	reversed := accuracy("reversed", vs, func(v *variant) float64 { return 1 / v.m.TimeMs })
	if reversed.Spearman != -1 || reversed.PickShare != 1.0/8 {
		t.Errorf("reversed estimates: %+v", reversed)
	}
	vs = append(vs, &variant{m: smart.Measurement{TimeMs: 0.5}})
	if skip := accuracy("unestimated", vs, func(v *variant) float64 {
		if v.m.TimeMs < 1 {
			return math.NaN()
		}
		return v.m.TimeMs
	}); skip.N != 4 || skip.PickShare != 0.5 {
		t.Errorf("a variant without an estimate still counts as the best measured: %+v", skip)
	}
}

// TestCommittedDataSet checks the report on the committed H100 data set against figures computed
// from its rows.csv with a separate script (Python's csv module).
func TestCommittedDataSet(t *testing.T) {
	rep, err := run(context.Background(), "../../data/measured/h100-sxm/classic", 0, defaults(t))
	if err != nil {
		t.Fatal(err)
	}
	if rep.CopyGBs != 2985 {
		t.Errorf("copy bandwidth %v; want the best recorded, 2985", rep.CopyGBs)
	}
	if rep.Rows != 1200 || rep.OK != 1198 || len(rep.Stencils) != 2 {
		t.Fatalf("%d rows, %d ok, %d stencils; want 1200, 1198, 2", rep.Rows, rep.OK, len(rep.Stencils))
	}
	j3 := rep.Stencils[0]
	if j3.Name != "j3d7pt" || j3.BestMs != 0.807992 || j3.BestOC != "BASE" || j3.Variants != 598 {
		t.Errorf("j3d7pt: %+v", j3)
	}
	// 2 * 512^3 * 8 bytes in 0.807992 ms.
	if want := 2 * 512 * 512 * 512 * 8 / 0.807992e-3 / 1e9; math.Abs(j3.GBs-want) > 1e-9 || math.Abs(j3.OfCopy-want/2985) > 1e-12 {
		t.Errorf("j3d7pt bandwidth %v (%v of copy), want %v", j3.GBs, j3.OfCopy, want)
	}
	if j2 := rep.Stencils[1]; j2.Name != "j2d5pt" || j2.BestMs != 0.185576 || j2.BestOC != "CM_TB" {
		t.Errorf("j2d5pt: %+v", j2)
	}
	// The spill bound of the search space (resources.go) was chosen so that no measured kernel
	// beyond it comes within 1.5 times its stencil's fastest: these rows were drawn before it.
	if o := rep.Outside; o.N == 0 || o.MinRatio < 1.5 || o.MedianRatio < o.MinRatio {
		t.Errorf("kernels outside the space: %+v", o)
	}
	// The classifier's first two OCs, placed among the OCs by the best time of each in rows.csv
	// (read here on its own); without a classifier BASE and ST: for j3d7pt BASE is the best, for
	// j2d5pt ST's 0.370516 ms against CM_TB's 0.185576.
	_, rows, err := dataset.ReadAll("../../data/measured/h100-sxm/classic")
	if err != nil {
		t.Fatal(err)
	}
	best := map[string]map[string]float64{}
	for _, m := range rows {
		if m.OK() {
			if best[m.StencilID] == nil {
				best[m.StencilID] = map[string]float64{}
			}
			if t, ok := best[m.StencilID][m.OC.String()]; !ok || m.TimeMs < t {
				best[m.StencilID][m.OC.String()] = m.TimeMs
			}
		}
	}
	unranked := map[string]float64{"j3d7pt": 1, "j2d5pt": 0.185576 / 0.370516}
	for i, got := range rep.Picks {
		b := best[rep.Stencils[i].ID]
		top := math.Inf(1)
		for _, v := range b {
			top = min(top, v)
		}
		picked := math.Inf(1)
		for k, oc := range got.Picks {
			faster := 0
			for _, v := range b {
				if v < b[oc] {
					faster++
				}
			}
			if got.Ranks[k] != faster+1 {
				t.Errorf("%s: %s placed %d; %d OCs are faster", got.Name, oc, got.Ranks[k], faster)
			}
			picked = min(picked, b[oc])
		}
		if b[got.BestOC] != top || got.OCs != 30 || len(got.Picks) != 2 || math.Abs(got.Share-top/picked) > 1e-12 ||
			math.Abs(got.First-top/b[got.Picks[0]]) > 1e-12 || math.Abs(got.Unranked-unranked[got.Name]) > 1e-12 {
			t.Errorf("classifier on %s: %+v; want the best OC %v ms, share %v, first %v, unranked %v", got.Name, got, top, top/picked, top/b[got.Picks[0]], unranked[got.Name])
		}
	}
	if len(rep.Analytic) != 30 {
		t.Errorf("%d OCs scored; want 30", len(rep.Analytic))
	}
	for _, a := range append(append(rep.Analytic, rep.Models...), rep.Ranking...) {
		if !(a.PickShare > 0 && a.PickShare <= 1) || !(a.MAPE >= 0) || !(a.Spearman >= -1 && a.Spearman <= 1) {
			t.Errorf("%s: %+v out of range", a.Group, a)
		}
	}
}

func TestRunRejects(t *testing.T) {
	dir := t.TempDir()
	if _, err := run(context.Background(), dir, 0, defaults(t)); err == nil {
		t.Error("an empty directory accepted as a data set")
	}
	if _, err := run(context.Background(), dir, 2985, defaults(t)); err == nil {
		t.Error("an empty directory accepted as a data set, with a copy bandwidth given")
	}
}

func defaults(t *testing.T) *predict.Models {
	t.Helper()
	ms, err := loadModels("")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}
