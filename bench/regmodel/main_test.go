package main

import (
	"context"
	"math"
	"testing"
)

// TestScore: golden values by hand. Predictions 10, 20, 40 against 20, 20, 20 (one stencil):
// MAPE (50% + 0% + 100%) / 3 = 50%, compiler over predicted 2, 1, 0.5 (median 1); predictions
// 1, 2, 3 against 10, 30, 20: Spearman 0.5.
func TestScore(t *testing.T) {
	s := score("x", []float64{10, 20, 40}, []float64{20, 20, 20}, []string{"a", "a", "a"})
	if math.Abs(s.MAPE-50) > 1e-9 || s.MedianRatio != 1 {
		t.Errorf("score %+v; want MAPE 50%%, median ratio 1", s)
	}
	s = score("y", []float64{1, 2, 3}, []float64{10, 30, 20}, []string{"a", "a", "a"})
	if math.Abs(s.Spearman-0.5) > 1e-9 || math.Abs(s.StencilSpearman-0.5) > 1e-9 {
		t.Errorf("score %+v; want Spearman 0.5 overall and within the stencil", s)
	}
}

// TestCampaign: on the campaign's 3-D stencils, with 3 folds, the learned registers held out
// rank and size the compiler's better than the estimate does (0.93 and 14% against 0.57 and 61%
// with 12 folds), and the named stencils' picks, never in its training, too.
func TestCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three gbdt models on 4,000 rows")
	}
	rep, err := run(context.Background(), []string{"../../data/measured/h100-sxm/campaign"},
		[]string{"../../data/measured/h100-sxm/picks-usage/*/rows.csv"}, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != 4072 || rep.Stencils != 34 || rep.TestRows != 36 || rep.TestStencils != 6 {
		t.Fatalf("%d rows of %d stencils, test %d of %d; want 4072 of 34, 36 of 6", rep.Rows, rep.Stencils, rep.TestRows, rep.TestStencils)
	}
	for _, sc := range [][]Score{rep.Scores, rep.Test} {
		est, learned := sc[0], sc[1]
		if learned.Spearman <= est.Spearman || learned.MAPE >= est.MAPE {
			t.Errorf("learned %+v does not beat the estimate %+v", learned, est)
		}
	}
	if _, err := run(context.Background(), []string{"../../data/measured/h100-sxm/campaign"}, nil, 4, 3); err == nil {
		t.Error("dims 4 accepted")
	}
}
