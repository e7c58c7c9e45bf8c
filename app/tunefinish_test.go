package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"smart/generator"
	"smart/tuner"
)

// openTune opens a tuning of j2d5pt on the simulated default GPU by strategy, within budget.
func openTune(t *testing.T, strategy string, budget tuner.Budget, notes io.Writer) *Tuning {
	t.Helper()
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	tu := Tune{Evaluator: Sim, Stencil: st, Strategy: strategy, Budget: budget, Seed: 1, Notes: notes,
		Options: tuner.Options{Model: tuner.Forest, PickRatio: 0.01, CutRatio: 0.5, Variants: 2}}
	tg, err := tu.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// TestTuneOpenNotes: a stencil tuned with no GPU named is tuned for the default, and the
// pipeline says which OCs of the many it searches.
func TestTuneOpenNotes(t *testing.T) {
	var notes strings.Builder
	tg := openTune(t, "pipeline", tuner.Budget{Evaluations: 4}, &notes)
	if tg.GPU.Name != DefaultSimGPU || tg.Searched != 2 {
		t.Errorf("tuning for %s, searching %d OCs; want %s and 2", tg.GPU.Name, tg.Searched, DefaultSimGPU)
	}
	want := "tuning for the " + DefaultSimGPU + ", as no GPU is named\n" +
		"the pipeline searches BASE,ST, the first 2 of the 30 OCs in the order given; rank them with an OC classifier, or choose the OCs\n"
	if notes.String() != want {
		t.Errorf("notes %q, want %q", notes.String(), want)
	}
}

// TestTuneFinish: what a finished search means, and what it writes.
func TestTuneFinish(t *testing.T) {
	dir := t.TempDir()
	trace, kernel := filepath.Join(dir, "trace.csv"), filepath.Join(dir, "best.cu")
	search := func(tg *Tuning) tuner.Result {
		res, err := tg.Search(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	reports := 0
	report := func(TuneReport) error { reports++; return nil }

	tg := openTune(t, "random", tuner.Budget{Evaluations: 5}, io.Discard)
	res := search(tg)
	tg.tune.Trace, tg.tune.Emit = trace, kernel
	if err := tg.Finish(res, nil, report); err != nil || reports != 1 {
		t.Fatalf("a search that found a setting: %v, %d reports", err, reports)
	}
	for _, f := range []struct{ path, has string }{{trace, TraceHeader}, {kernel, "__global__"}} {
		if b, err := os.ReadFile(f.path); err != nil || !strings.Contains(string(b), f.has) {
			t.Errorf("%s: %v; want it to hold %q", f.path, err, f.has)
		}
	}
	tg.tune.Trace, tg.tune.Emit = "", ""
	err := tg.Finish(res, context.Canceled, report)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 5 evaluations; the best so far") {
		t.Errorf("an interrupted search: %v", err)
	}
	failed := errors.New("the GPU fell off the bus")
	if err := tg.Finish(res, failed, report); !errors.Is(err, failed) || reports != 2 {
		t.Errorf("a failed search: %v, %d reports; want its error and no report", err, reports)
	}

	tg = openTune(t, "random", tuner.Budget{Time: time.Nanosecond}, io.Discard)
	res = search(tg)
	tg.tune.Emit = kernel
	err = tg.Finish(res, nil, report)
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "Time" || se.Wrong || se.Value != "1ns" {
		t.Errorf("a search out of time before any evaluation: %v; want a SettingError of Time", err)
	}
	if res.Best.Setting != nil {
		t.Errorf("the search found %v in no time", res.Best.Setting)
	}
}

// TestTuneRefusesOutputs: Open refuses, before any search, a trace or kernel file that holds
// something smart did not write as such (unless Replace) and a kernel to emit for a Kernel
// Tuner kernel, each a SettingError of its field; files smart wrote are replaced.
func TestTuneRefusesOutputs(t *testing.T) {
	dir := t.TempDir()
	notOurs := filepath.Join(dir, "notes.txt")
	trace := filepath.Join(dir, "trace.csv")
	if err := errors.Join(os.WriteFile(notOurs, []byte("mine\n"), 0o644), os.WriteFile(trace, []byte(TraceHeader+"\n"), 0o644)); err != nil {
		t.Fatal(err)
	}
	st, err := generator.NamedStencil("j2d5pt", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		tune  Tune
		field string
	}{
		{"trace not ours", Tune{Stencil: st, Evaluator: Sim, Trace: notOurs}, "Trace"},
		{"kernel not ours", Tune{Stencil: st, Evaluator: Sim, Emit: notOurs}, "Emit"},
		{"replaced when told", Tune{Stencil: st, Evaluator: Sim, Emit: notOurs, Replace: true}, ""},
		{"a trace of smart's", Tune{Stencil: st, Evaluator: Sim, Trace: trace}, ""},
		{"kernel of a Kernel Tuner kernel", Tune{Evaluator: "replay:../data/kernel-tuner/convolution_milo/A100.json.gz", Emit: filepath.Join(dir, "k.cu")}, "Emit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.tune.Strategy, c.tune.Budget = "random", tuner.Budget{Evaluations: 1}
			tg, err := c.tune.Open(context.Background())
			if err == nil {
				tg.Close()
			}
			if got := refusedField(t, err); got != c.field {
				t.Errorf("refused %q (%v), want %q", got, err, c.field)
			}
		})
	}
}

// TestTuneReportOCsEvaluated: a search stopped before it reached every OC it was given (by the
// budget here, by Ctrl-C alike) reports as searched only the OCs it evaluated, in rank order.
func TestTuneReportOCsEvaluated(t *testing.T) {
	tg := openTune(t, "exhaustive", tuner.Budget{Evaluations: 3}, io.Discard)
	res, err := tg.Search(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tg.Searched < 2 || res.Evaluations != 3 {
		t.Fatalf("searching %d OCs, %d evaluations; want several OCs and 3", tg.Searched, res.Evaluations)
	}
	first := tg.Problem.Variants[res.History[0].Variant].OC.String()
	if got := tg.Report(res).OCs; len(got) != 1 || got[0] != first {
		t.Errorf("OCs searched %v; want only %s, the one evaluated", got, first)
	}
	// Evaluations of the second and first OCs in turn list both, in rank order.
	res.History = []tuner.Outcome{{Candidate: tuner.Candidate{Variant: 1}}, {Candidate: tuner.Candidate{Variant: 0}}}
	if got, want := tg.Report(res).OCs, tg.OCs()[:2]; !slices.Equal(got, want) {
		t.Errorf("OCs searched %v, want %v", got, want)
	}
}
