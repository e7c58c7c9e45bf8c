package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"smart/dataset"
	"smart/models"
	"smart/models/kinds"
	"smart/models/rows"
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

// TestFlags: golden values by hand. Predicted 0, 100, 100, 10 bytes against 100, 100, 0, 65:
// flagged 2, local 3, both 1, precision 1/2, recall 1/3. TestWithoutLocal: stencil a's fastest
// (1 ms) keeps 100 bytes, its fastest keeping at most 64 takes 1.5 ms; b's fastest keeps none.
func TestFlags(t *testing.T) {
	f := flags("x", []float64{0, 100, 100, 10}, []float64{100, 100, 0, 65})
	if f.Flagged != 2 || f.Local != 3 || f.Both != 1 || f.Precision != 0.5 || math.Abs(f.Recall-1.0/3) > 1e-12 {
		t.Errorf("flags %+v; want 2 flagged, 3 local, 1 both, precision 0.5, recall 1/3", f)
	}
}

func TestWithoutLocal(t *testing.T) {
	r := &rowsOf{data: &models.Data{Groups: []string{"a", "a", "a", "b", "b"}},
		actual: []float64{100, 64, 0, 0, 200}, ms: []float64{1, 1.5, 2, 3, 4}}
	n, worst := withoutLocal(r)
	if n != 1 || worst != 1.5 {
		t.Errorf("withoutLocal: %d stencils, worst %v; want 1, 1.5", n, worst)
	}
}

// TestCampaign: on the campaign's 3-D stencils, with 3 folds, the learned registers held out
// rank and size the compiler's better than the estimate does (the figures of 12 folds:
// docs/results/calibration.md), and the named stencils' picks, never in its training, too;
// every row with the compiler's registers is read.
func TestCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three gbdt models on 4,000 rows")
	}
	const campaign = "../../data/measured/h100-sxm/campaign"
	rep, err := run(context.Background(), []string{campaign},
		[]string{"../../data/measured/h100-sxm/picks-usage/*/rows.csv"}, 3, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	rows, stencils := countWithRegs(t, campaign, 3)
	if rep.Rows != rows || rep.Stencils != stencils || rep.TestRows != 36 || rep.TestStencils != 6 {
		t.Fatalf("%d rows of %d stencils, test %d of %d; want %d of %d, 36 of 6", rep.Rows, rep.Stencils, rep.TestRows, rep.TestStencils, rows, stencils)
	}
	for _, sc := range [][]Score{rep.Scores, rep.Test} {
		est, learned := sc[0], sc[1]
		if learned.Spearman <= est.Spearman || learned.MAPE >= est.MAPE {
			t.Errorf("learned %+v does not beat the estimate %+v", learned, est)
		}
	}
	if _, err := run(context.Background(), []string{"../../data/measured/h100-sxm/campaign"}, nil, 4, 3, false); err == nil {
		t.Error("dims 4 accepted")
	}
}

// TestCampaignLocal: on the campaign's 3-D stencils, with 3 folds, the learned local memory held
// out finds more of the variants that keep over 64 bytes a thread than the estimate does,
// without flagging more wrongly (the figures of 12 folds: docs/results/calibration.md).
func TestCampaignLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three gbdt models on 8,000 rows")
	}
	rep, err := run(context.Background(), []string{"../../data/measured/h100-sxm/campaign"}, nil, 3, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scores != nil || len(rep.Flags) != 2 || rep.Target != "local bytes" {
		t.Fatalf("report %+v; want two detectors of local memory and no register scores", rep)
	}
	est, learned := rep.Flags[0], rep.Flags[1]
	if est.Local != learned.Local || learned.Recall <= est.Recall || learned.Precision < est.Precision {
		t.Errorf("learned %+v does not beat the estimate %+v", learned, est)
	}
}

// countWithRegs counts the rows of a data set that have the compiler's registers, and their
// stencils, where the stencil has dims dimensions (its file's "dims" read with encoding/json):
// what load must keep.
func countWithRegs(t *testing.T, dir string, dims int) (rows, stencils int) {
	t.Helper()
	_, ms, err := dataset.ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	dimsOf, seen := map[string]int{}, map[string]bool{}
	for _, m := range ms {
		if m.Compiled == nil || m.Compiled.RegsPerThread <= 0 {
			continue
		}
		if _, ok := dimsOf[m.StencilID]; !ok {
			b, err := os.ReadFile(filepath.Join(dir, "stencils", m.StencilID+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var st struct {
				Dims int `json:"dims"`
			}
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			dimsOf[m.StencilID] = st.Dims
		}
		if dimsOf[m.StencilID] == dims {
			rows++
			seen[m.StencilID] = true
		}
	}
	return rows, len(seen)
}

// TestWriteLocal: the model -o writes is a local-memory model whose columns package rows builds
// (as smart predict does), trained on every row with the compiler's report, predicting bytes.
func TestWriteLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a gbdt model on 8,000 rows")
	}
	const campaign = "../../data/measured/h100-sxm/campaign"
	path := filepath.Join(t.TempDir(), "local-2d.smartmodel.gz")
	if err := writeLocal(context.Background(), []string{campaign}, 2, path); err != nil {
		t.Fatal(err)
	}
	m, err := models.Load(path, kinds.All())
	if err != nil {
		t.Fatal(err)
	}
	f, err := rows.New(*m.Header.Inputs)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := countWithRegs(t, campaign, 2)
	h := m.Header
	if h.Task != models.Local || h.Target != models.TargetLnLocalBytes || !slices.Equal(f.Names(), h.Features) || len(h.Data) != 1 || h.Data[0].Rows != want {
		t.Errorf("header %s/%s, %d features (rows builds %d), data %+v; want a local model of %d rows", h.Task, h.Target, len(h.Features), len(f.Names()), h.Data, want)
	}
}
