package tuner

import (
	"context"
	"errors"
	"math"
	"testing"

	"smart"
	"smart/dataset"
	"smart/transfer"
)

// fewShotSources are two GPUs' times of settings a=1..n, t = a mod 5 + 1 (times scale).
func fewShotSources(n int) []transfer.Source {
	var srcs []transfer.Source
	for i, scale := range []float64{1, 2} {
		var rows []smart.Measurement
		for a := 1; a <= n; a++ {
			rows = append(rows, smart.Measurement{Kernel: "k", Setting: smart.Setting{"a": a}, Status: smart.StatusOK,
				TimeMs: scale * float64(a%5+1), Source: smart.Imported})
		}
		srcs = append(srcs, transfer.Source{GPU: smart.GPU{Name: []string{"A", "B"}[i]}, Rows: rows})
	}
	return srcs
}

// TestFewShotLearnsApart: each search's learning prior moves to the target's level as its runs
// come in, at powers of two, and leaves the FewShot and other searches as they were.
func TestFewShotLearnsApart(t *testing.T) {
	f, err := NewFewShot(fewShotSources(20), smart.GPU{}, "A, B", transfer.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	q := func(a int) smart.Query { return smart.Query{Setting: smart.Setting{"a": a}} }
	ctx := context.Background()
	zero, err := f.Evaluate(ctx, q(3))
	if err != nil || zero.Source != smart.Predicted {
		t.Fatalf("zero-shot %+v, %v", zero, err)
	}
	one, other := f.Learn(), f.Learn()
	var changed []int
	for a := 1; a <= 9; a++ {
		// The target runs every setting 10x the sources' geometric mean level.
		m := smart.Measurement{Kernel: "k", Setting: smart.Setting{"a": a}, Status: smart.StatusOK}
		if one.Observe(m, 10*math.Sqrt2*float64(a%5+1)) {
			changed = append(changed, a)
		}
	}
	if want := []int{1, 2, 4, 8}; len(changed) != len(want) || changed[3] != 8 {
		t.Errorf("refitted after runs %v, want %v", changed, want)
	}
	got, err := one.Evaluate(ctx, q(13))
	if want := 10 * math.Sqrt2 * 4; err != nil || math.Abs(got.TimeMs-want) > 1e-9*want {
		t.Errorf("learnt a=13: %g (%v), want %g", got.TimeMs, err, want)
	}
	for _, ev := range []smart.Evaluator{f, other} {
		if m, _ := ev.Evaluate(ctx, q(3)); m.TimeMs != zero.TimeMs {
			t.Errorf("another search's prior moved: %g, want %g", m.TimeMs, zero.TimeMs)
		}
	}
	if _, err := f.Evaluate(ctx, q(99)); !errors.Is(err, dataset.ErrNotMeasured) {
		t.Errorf("a setting no source ran: %v, want ErrNotMeasured", err)
	}
}
