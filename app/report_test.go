package app

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"testing"
	"time"

	"smart"
	"smart/dataset"
	"smart/models"
	"smart/tuner"
)

func TestReportsText(t *testing.T) {
	st := smart.Combination(0).With(smart.ST)
	best := 0.5
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"tune", func(b *bytes.Buffer) error {
			return TuneReport{Method: "bayes", Seed: 3, Kernel: "j3d7pt", BestOC: &st, BestSetting: smart.Setting{"bx": 32}, BestTimeMs: &best,
				Objective: "time_ms (median of the runs)", Source: smart.Simulated, Evaluations: 20, Failures: 2, Stop: tuner.StopEvaluations,
				OverheadMs: 1.25, OCs: []string{"ST", "BASE"}, Classifier: "select.model", Record: "runs/r", Recorded: 5,
				elapsed: 1234567 * time.Microsecond, stencil: true}.WriteText(b)
		}, `best setting of j3d7pt under ST: bx=32
time: 0.5 ms per step, simulated; objective time_ms (median of the runs)
bayes, seed 3: 20 evaluations (2 failed), stopped: evaluations, 1.235s (strategy 1.25 ms per evaluation)
OCs searched, in rank order: ST,BASE
OCs ranked by select.model
evaluations recorded in runs/r: 5 answered from earlier runs, 15 run now
`},
		{"tune of a kernel", func(b *bytes.Buffer) error {
			return TuneReport{Method: "random", Seed: 1, Kernel: "conv", BestSetting: smart.Setting{"block_size_x": 16}, BestTimeMs: &best,
				Objective: "mean_ms (Kernel Tuner's objective)", Source: smart.Imported, Device: "W6600", Evaluations: 4, Stop: tuner.StopEvaluations,
				OCs: []string{}, Prior: "transfer from 2 GPUs", elapsed: time.Millisecond}.WriteText(b)
		}, `best setting of conv: block_size_x=16
time: 0.5 ms, imported (W6600); objective mean_ms (Kernel Tuner's objective)
random, seed 1: 4 evaluations (0 failed), stopped: evaluations, 1ms (strategy 0 ms per evaluation)
settings ranked before any run by transfer from 2 GPUs
`},
		{"tune that found nothing", func(b *bytes.Buffer) error {
			return TuneReport{Method: "random", Evaluations: 3}.WriteText(b)
		}, "random found no setting that runs: all 3 evaluations failed\n"},
		{"tune with no evaluation", func(b *bytes.Buffer) error { return TuneReport{Method: "random"}.WriteText(b) }, ""},
		{"comparison", func(b *bytes.Buffer) error {
			cases := []Case{{Case: tuner.Case{Name: "convolution_milo/A100", Size: 4362, Optimum: 0.5536000076681376}, Source: smart.Imported}}
			reach := []tuner.Reach{
				{Case: "convolution_milo/A100", Method: "random", Evaluations: []int{10, 30, 20}},
				{Case: "convolution_milo/A100", Method: "bayes", Evaluations: []int{0, 0, 7}},
			}
			c := NewComparison(0.95, 100, cases, reach)
			c.Standards = []tuner.Standard{
				{Case: "convolution_milo/A100", Method: "random", Ratio: 0.01, Budget: 43, Median: 0.9, P5: 0.8},
				{Case: "convolution_milo/A100", Method: "iterml", Ratio: 0.01, Budget: 43, Median: 0.95, P5: 0.85},
			}
			return c.WriteTables(b)
		}, "Evaluations to reach 95% of the optimum (median, 95th percentile over seeds; '-': not within 100)\n\n" +
			"               data set  settings  method  median  p95  reached       Kernel Tuner 1.4 (quoted)\n" +
			"  convolution_milo/A100      4362  random      20   30      3/3  153 (genetic algorithm, 17/20)\n" +
			"                                    bayes       -    -      1/3                                \n" +
			"\n" + kernelTunerQuoted + ".\n" +
			"Not the same conditions as this run's: 3 seeds of random, bayes; each search stopped at 100 evaluations.\n" +
			"\nIterML's standards: optimum/best, median and 5th percentile over seeds, by share of the space sampled\n\n" +
			"               data set  share  evaluations  random median  random p5  iterml median  iterml p5\n" +
			"  convolution_milo/A100  1.00%           43          0.900      0.800          0.950      0.850\n"},
		{"comparison to another share", func(b *bytes.Buffer) error {
			cases := []Case{{Case: tuner.Case{Name: "convolution_milo/A100", Size: 4362, Optimum: 0.5536000076681376}, Source: smart.Imported}}
			reach := []tuner.Reach{{Case: "convolution_milo/A100", Method: "random", Evaluations: []int{10, 30, 20}}}
			return NewComparison(0.8, 100, cases, reach).WriteTables(b)
		}, "Evaluations to reach 80% of the optimum (median, 95th percentile over seeds; '-': not within 100)\n\n" +
			"               data set  settings  method  median  p95  reached  Kernel Tuner 1.4 (quoted)\n" +
			"  convolution_milo/A100      4362  random      20   30      3/3              (to 95% only)\n" +
			"\n" + kernelTunerQuoted + ".\n"},
		{"dry run", func(b *bytes.Buffer) error {
			return DryRunReport{Out: "runs/a", GPU: "A100-40GB", Stencils: 4, InShard: 2, Shard: "1/2", Variants: 6, Invalid: 1, Done: 2, ToRun: 4,
				PerOC: map[string]int{"BASE": 2, "ST": 4}, PlanSeed: 7, PlanDraws: 3, ocs: []smart.Combination{0, st}}.WriteText(b)
		}, `dry run: nothing measured, nothing written to runs/a
GPU A100-40GB; 4 stencils, 2 in shard 1/2; 3 settings per OC, seed 7
6 variants: 2 already in the data set, 4 to run (1 of them OCs with no valid setting, recorded as invalid)
OC    variants
BASE  2
ST    4
`},
		{"bench", func(b *bytes.Buffer) error {
			s := dataset.Summary{Total: 10, Skipped: 2, Written: 8, Elapsed: 2 * time.Second, ReadingErrors: 1,
				ByStatus: map[smart.Status]int{smart.StatusOK: 6, smart.StatusTimeout: 2}, Cut: map[smart.Cut]int{smart.CutSlow: 1, smart.CutStopped: 2}}
			r := BenchReport{Out: "runs/a", Source: smart.Measured, GPU: "H100-SXM", sum: s, RowsPerSec: 4}
			return r.WriteText(b)
		}, `runs/a: 8 of 10 variants written (measured on H100-SXM), 2 were already there
status: ok 6, timeout 2
cut short (far slower than the fastest so far): 1 timed by their checked run, 2 stopped after their first launch
NVML readings failed for 1 batches; their rows have none
2s, 4 rows/s
`},
		{"campaign call", func(b *bytes.Buffer) error {
			return CampaignReport{Out: "runs/c", GPU: "H100-SXM", Source: smart.Measured, Rows: 120, OK: 100, Rows2D: 70, Rows3D: 50, Cut: 9,
				Seconds: 60.4, RowsPerMin: 119.2, StencilsDone: 3, Stencils: 40, CopyGBs: 2890.4, CompileS: 80, Compiles: 30, GPUS: 50, Starts: 4, WaitS: 5}.WriteText(b)
		}, `runs/c: 120 rows (measured on H100-SXM): 100 ok, 9 cut short; 2-D 70, 3-D 50
1.0 min, 119 rows a minute; 3 of 40 stencils of the manifest done
time: compilers 80 s in 30 runs, GPU 50 s (4 harness processes), waiting for compiles 5 s
device-to-device copy: 2890 GB/s
`},
		{"training", func(b *bytes.Buffer) error {
			return TrainReport{Model: "rt.model", Kind: "gbdt", Task: models.Runtime, Rows: 90, Features: 12, Hyper: "rounds=20",
				Importance: []models.Importance{{Feature: "order", Gain: 12.5, Splits: 4}, {Feature: "bx", Gain: 0.01234, Splits: 1}}}.WriteText(b)
		}, `trained gbdt (runtime) on 90 rows of 12 features; hyper-parameters rounds=20
most important features (gain, splits): order (12.5, 4) bx (0.0123, 1)
wrote rt.model
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}

func TestTopImportance(t *testing.T) {
	imp := []models.Importance{{Feature: "a", Gain: 1, Splits: 1}, {Feature: "b", Gain: 3, Splits: 2}, {Feature: "c", Splits: 0}, {Feature: "d", Gain: 2, Splits: 1}}
	got := topImportance(imp, 2)
	if len(got) != 2 || got[0].Feature != "b" || got[1].Feature != "d" {
		t.Errorf("top 2: %+v", got)
	}
	if got := topImportance(imp, 10); len(got) != 3 {
		t.Errorf("features never split on are left out: %+v", got)
	}
	if imp[0].Feature != "a" {
		t.Error("the input was reordered")
	}
}

func TestTraceCSV(t *testing.T) {
	st := smart.Combination(0).With(smart.ST)
	p := tuner.Problem{Variants: []tuner.Variant{{OC: 0}, {OC: st}}, Stencil: &smart.Stencil{Name: "s"}}
	res := tuner.Result{
		Trace: []float64{math.Inf(1), 2.5, 1.25},
		History: []tuner.Outcome{
			{Candidate: tuner.Candidate{Variant: 0, Setting: smart.Setting{"bx": 8}}, Measurement: smart.Measurement{Status: smart.StatusLaunchError}, Value: math.Inf(1), N: 1},
			{Candidate: tuner.Candidate{Variant: 1, Setting: smart.Setting{"bx": 16, "by": 2}}, Measurement: smart.Measurement{Status: smart.StatusOK}, Value: 2.5, N: 2},
			{Candidate: tuner.Candidate{Variant: 1, Setting: smart.Setting{"bx": 32}}, Measurement: smart.Measurement{Status: smart.StatusOK}, Value: 1.25, N: 3},
		},
	}
	want := TraceHeader + `1,,,launch_error,BASE,"bx=8"
2,2.5,2.5,ok,ST,"bx=16,by=2"
3,1.25,1.25,ok,ST,"bx=32"
`
	if got := string(TraceCSV(p, res, nil)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A Kernel Tuner kernel's trace prints its booleans and labels as Kernel Tuner does, a
	// label's quote doubled as CSV has it, and reads back as CSV.
	p = tuner.Problem{Variants: []tuner.Variant{{}}}
	params := []dataset.Param{{Name: "alpha", Values: []int{7}, Labels: []json.RawMessage{json.RawMessage("0.5")}},
		{Name: "mode", Values: []int{9}, Labels: []json.RawMessage{json.RawMessage(`"say \"hi\""`)}}, {Name: "pad", Values: []int{0, 1}, Bool: true}}
	res = tuner.Result{Trace: []float64{2}, History: []tuner.Outcome{{Candidate: tuner.Candidate{Setting: smart.Setting{"alpha": 7, "mode": 9, "pad": 1}},
		Measurement: smart.Measurement{Status: smart.StatusOK}, Value: 2, N: 1}}}
	rows, err := csv.NewReader(bytes.NewReader(TraceCSV(p, res, params))).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][5] != `alpha=0.5,mode=say "hi",pad=True` {
		t.Errorf("the trace of a Kernel Tuner kernel reads %q (%v)", rows, err)
	}
}
