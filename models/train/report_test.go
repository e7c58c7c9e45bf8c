package train

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"smart/models"
	"smart/models/kinds"
)

// TestReportWriteTables compares the tables of small reports with hand-checked text.
func TestReportWriteTables(t *testing.T) {
	data := []models.DataRef{{Path: "runs/a", Sources: map[string]int{"measured": 12, "simulated": 3}}}
	rt := func(gpu string, rows int, mape float64) Scores {
		return Scores{GPU: gpu, Rows: rows, RuntimeScores: &RuntimeScores{MAPE: mape, PickShare: 0.9, Problems: 2,
			Percentiles: map[string]float64{"p50": 5, "p90": 10, "p95": 12, "p99": 20, "max": 25}}}
	}
	sel := func(gpu string, confusion [][]int, notRun int) Scores {
		return Scores{GPU: gpu, Rows: 3, SelectScores: &SelectScores{Accuracy: 2.0 / 3, Classes: []string{"ST", "TB"},
			Confusion: confusion, SpeedupOverWorst: 2.5, SpeedupOverFixed: 1.25, FixedOC: "ST", OracleShare: 0.95, FixedShare: 0.8, NotRun: notRun}}
	}
	tests := []struct {
		name   string
		report Report
		want   string
	}{
		{"runtime, one GPU: no total", Report{Task: models.Runtime, Kind: "gbdt", Rows: 12, Data: data, PerGPU: []Scores{rt("V100", 12, 7.25)}, Overall: rt("", 12, 7.25)}, `gbdt runtime, the saved model on this data, 12 rows (runs/a: 12 measured, 3 simulated measurements)
   GPU  rows  MAPE   p50    p90    p95    p99  max  pick share  problems
  V100    12  7.2%  5.0%  10.0%  12.0%  20.0%  25%       90.0%         2
MAPE, p50-max: mean and percentiles of the absolute percentage error of the predicted time per step
pick share: mean over the problems of best measured time / measured time of the variant predicted fastest
problems: the picks pick share averages: one per stencil on the GPU (one in all for a Kernel Tuner kernel)
`},
		{"runtime, in-sample", Report{Task: models.Runtime, Kind: "gbdt", Rows: 12, Data: data, InSample: "runs/a", PerGPU: []Scores{rt("V100", 12, 7.25)}, Overall: rt("", 12, 7.25)},
			`gbdt runtime, the saved model on the data it was trained on (in-sample: not a test), 12 rows (runs/a: 12 measured, 3 simulated measurements)
   GPU  rows  MAPE   p50    p90    p95    p99  max  pick share  problems
  V100    12  7.2%  5.0%  10.0%  12.0%  20.0%  25%       90.0%         2
MAPE, p50-max: mean and percentiles of the absolute percentage error of the predicted time per step
pick share: mean over the problems of best measured time / measured time of the variant predicted fastest
problems: the picks pick share averages: one per stencil on the GPU (one in all for a Kernel Tuner kernel)
`},
		{"runtime, two GPUs and the total, cross-validated", Report{Task: models.Runtime, Kind: "forest", Folds: 3, Grouping: "stencil", Rows: 20, Data: data,
			PerGPU: []Scores{rt("A100", 8, 10), rt("V100", 12, 20)}, Overall: rt("", 20, 16)}, `forest runtime, 3-fold cross-validation grouped by stencil, 20 rows (runs/a: 12 measured, 3 simulated measurements)
   GPU  rows   MAPE   p50    p90    p95    p99  max  pick share  problems
  A100     8  10.0%  5.0%  10.0%  12.0%  20.0%  25%       90.0%         2
  V100    12  20.0%  5.0%  10.0%  12.0%  20.0%  25%       90.0%         2
   all    20  16.0%  5.0%  10.0%  12.0%  20.0%  25%       90.0%         2
MAPE, p50-max: mean and percentiles of the absolute percentage error of the predicted time per step
pick share: mean over the problems of best measured time / measured time of the variant predicted fastest
problems: the picks pick share averages: one per stencil on the GPU (one in all for a Kernel Tuner kernel)
`},
		{"select, held out, a predicted OC that did not run", Report{Task: models.Select, Kind: "gbdt", Holdout: "V100", Rows: 3, Data: data,
			PerGPU: []Scores{sel("V100", [][]int{{2, 0}, {1, 0}}, 1)}, Overall: sel("", [][]int{{2, 0}, {1, 0}}, 1)}, `gbdt select, trained on the other GPUs, V100 held out, 3 rows (runs/a: 12 measured, 3 simulated measurements)
   GPU  instances  accuracy  speedup vs worst  vs best fixed OC  fixed OC  oracle share  fixed OC share
  V100          3     66.7%             2.50x             1.25x        ST         95.0%           80.0%

confusion matrix, V100 (rows: true class, columns: predicted):
      ST  TB
  ST   2   0
  TB   1   0
1 predicted OCs did not run on their stencil (share 0)
`},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := tt.report.WriteTables(&b); err != nil {
			t.Fatal(err)
		}
		if b.String() != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, b.String(), tt.want)
		}
	}
}

func TestWriteHoldoutTable(t *testing.T) {
	rep := func(gpu string, mape, share float64) Report {
		return Report{Holdout: gpu, Overall: Scores{Rows: 10, RuntimeScores: &RuntimeScores{MAPE: mape, PickShare: share,
			Percentiles: map[string]float64{"p50": mape / 2, "p90": 2 * mape}}}}
	}
	var b strings.Builder
	if err := WriteHoldoutTable(&b, []Report{rep("A100", 10, 0.9), rep("V100", 30, 0.7)}); err != nil {
		t.Fatal(err)
	}
	// The mean row averages MAPE (20) and pick share (80%).
	want := `leave-one-GPU-out: each GPU predicted by a model trained on the others
  held-out GPU  rows   MAPE    p50    p90  pick share
          A100    10  10.0%   5.0%  20.0%       90.0%
          V100    10  30.0%  15.0%  60.0%       70.0%
          mean        20.0%                     80.0%
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestAssess: each way of scoring gives its reports, the kind and the progress, and a GPU the
// data lacks is a GPUNotInDataError naming those it holds.
func TestAssess(t *testing.T) {
	dir := synthDataSet(t, 12, []string{"A100-40GB", "V100"}, 7)
	k := kinds.All()
	set, err := Load(context.Background(), []string{dir}, Options{Task: models.Runtime})
	if err != nil {
		t.Fatal(err)
	}
	m := savedModel(t, set, "gbdt", map[string]string{"rounds": "20"})
	tests := []struct {
		opt      AssessOptions
		holdouts []string
		folds    int
		progress [][2]int
	}{
		{AssessOptions{}, []string{""}, 0, nil},
		{AssessOptions{Folds: 2, Seed: 1}, []string{""}, 2, [][2]int{{0, 2}, {1, 2}, {2, 2}}},
		{AssessOptions{Holdout: "V100"}, []string{"V100"}, 0, [][2]int{{0, 1}, {1, 1}}},
		{AssessOptions{Holdout: "all"}, []string{"A100-40GB", "V100"}, 0, [][2]int{{0, 2}, {1, 2}, {2, 2}}},
	}
	for _, tt := range tests {
		var progress [][2]int
		tt.opt.Progress = func(done, total int) { progress = append(progress, [2]int{done, total}) }
		reports, err := Assess(context.Background(), k, m, set, tt.opt)
		if err != nil {
			t.Fatalf("%+v: %v", tt.opt, err)
		}
		var holdouts []string
		for _, r := range reports {
			holdouts = append(holdouts, r.Holdout)
			if r.Kind != "gbdt" || r.Folds != tt.folds {
				t.Errorf("%+v: report kind %q folds %d", tt.opt, r.Kind, r.Folds)
			}
		}
		if !slices.Equal(holdouts, tt.holdouts) || !slices.Equal(progress, tt.progress) {
			t.Errorf("%+v: held out %q, progress %v; want %q, %v", tt.opt, holdouts, progress, tt.holdouts, tt.progress)
		}
	}
	_, err = Assess(context.Background(), k, m, set, AssessOptions{Holdout: "H100"})
	var notIn *GPUNotInDataError
	if !errors.As(err, &notIn) || notIn.GPU != "H100" || !slices.Equal(notIn.Have, []string{"A100-40GB", "V100"}) {
		t.Errorf("unknown GPU: %v", err)
	}
}
