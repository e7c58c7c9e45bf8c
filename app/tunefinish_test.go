package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
	if err := tg.Finish(res, nil, report, trace, kernel); err != nil || reports != 1 {
		t.Fatalf("a search that found a setting: %v, %d reports", err, reports)
	}
	for _, f := range []struct{ path, has string }{{trace, TraceHeader}, {kernel, "__global__"}} {
		if b, err := os.ReadFile(f.path); err != nil || !strings.Contains(string(b), f.has) {
			t.Errorf("%s: %v; want it to hold %q", f.path, err, f.has)
		}
	}
	err := tg.Finish(res, context.Canceled, report, "", "")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 5 evaluations; the best so far") {
		t.Errorf("an interrupted search: %v", err)
	}
	failed := errors.New("the GPU fell off the bus")
	if err := tg.Finish(res, failed, report, "", ""); !errors.Is(err, failed) || reports != 2 {
		t.Errorf("a failed search: %v, %d reports; want its error and no report", err, reports)
	}

	tg = openTune(t, "random", tuner.Budget{Time: time.Nanosecond}, io.Discard)
	res = search(tg)
	err = tg.Finish(res, nil, report, "", kernel)
	var se *SettingError
	if !errors.As(err, &se) || se.Field != "Time" || se.Wrong || se.Value != "1ns" {
		t.Errorf("a search out of time before any evaluation: %v; want a SettingError of Time", err)
	}
	if res.Best.Setting != nil {
		t.Errorf("the search found %v in no time", res.Best.Setting)
	}
}
