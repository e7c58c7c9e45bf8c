package main

import (
	"math"
	"testing"

	"smart"
	"smart/dataset/cuda"
)

// TestLabelsUnchanged is the protocol's promise on the committed measurements: replayed through
// the protocol that cuts slow variants short, every stencil's best OC and every OC's best setting
// are those of the full protocol, in every order the variants could come in, with each variant
// judged by its slowest run and each cut one recorded at its fastest.
func TestLabelsUnchanged(t *testing.T) {
	globs := []string{"../../data/measured/h100-sxm/classic", "../../data/measured/h100-sxm/more", "../../data/measured/h100-sxm/random/*", "../../data/measured/h200/random/*"}
	for _, order := range []string{"file", "model", "oracle"} {
		rep, err := run(globs, order, true, 0.75, 2.8, 16, 0.5, 24)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Stencils) < 15 {
			t.Fatalf("%d stencils replayed; the committed data hold 15", len(rep.Stencils))
		}
		// A cheap 2-D stencil may cost more (its samples near the best last 10 ms, not one short
		// run), but not the whole.
		if all := rep.Rate[0]; all.CutGPU <= all.FullGPU {
			t.Errorf("order %s: %.0f rows a GPU-minute cut against %.0f full", order, all.CutGPU, all.FullGPU)
		}
		for _, s := range rep.Stencils {
			if !s.LabelsSame {
				t.Errorf("order %s: %s %s: labels differ (%d OCs' best settings)", order, s.Set, s.Name, s.OCLabelChanges)
			}
			if s.Stopped+s.Slow+s.Full != s.Rows {
				t.Errorf("order %s: %s %s: %d stopped, %d slow and %d full of %d rows", order, s.Set, s.Name, s.Stopped, s.Slow, s.Full, s.Rows)
			}
		}
	}
}

// TestReplayCosts checks the replay's arithmetic on three variants computed by hand.
func TestReplayCosts(t *testing.T) {
	base, st := smart.Combination(0), smart.Combination(smart.ST)
	s := &stencil{gridBytes: 1e9, copyGBs: 4000, rows: []variant{
		{oc: base, key: "a", t: 1, fastest: 1, max: 1, reps: 5, tt: 1},     // the first: measured in full
		{oc: base, key: "b", t: 10, fastest: 9, max: 11, reps: 2, tt: 1},   // 10x: stopped after its first launch
		{oc: st, key: "c", t: 1.2, fastest: 1.2, max: 1.2, reps: 5, tt: 8}, // near: samples of 10 ms
	}}
	reset := 2 * 2 * 1e9 / 4000e9 * 1e3 // 1 ms
	if got := s.resetMs(1); math.Abs(got-reset) > 1e-12 {
		t.Fatalf("reset %v ms; want %v", got, reset)
	}
	full := s.full(8, 1)
	// a: 6 runs of 8 ms; b: 3 runs of 80 ms; c: 6 runs of 9.6 ms; each run after a reset.
	if want := 6*(8+reset) + 3*(80+reset) + 6*(9.6+reset); math.Abs(full.gpuMs-want) > 1e-9 || full.runs != 15 {
		t.Errorf("full: %v ms in %d runs; want %v in 15", full.gpuMs, full.runs, want)
	}
	p := protocol{cut: cuda.Cut{}, steps: 8, reps: 5, sampleMs: 10}
	cut := s.cutShort(p, []int{0, 1, 2}, 1)
	// a: checked run, then 5 samples of ceil(10/8) = 2 runs; b: reset and one launch of 10 ms;
	// c: the first of its OC (near: 1.2 <= 1.5): checked run, 5 samples of ceil(10/9.6) = 2 runs.
	want := (8 + reset) + 10*(8+reset) + (reset + 10) + (9.6 + reset) + 10*(9.6+reset)
	if math.Abs(cut.gpuMs-want) > 1e-9 || cut.stopped != 1 || cut.full != 2 || cut.near != 2 {
		t.Errorf("cut: %v ms, %d stopped, %d full, %d near; want %v, 1, 2, 2", cut.gpuMs, cut.stopped, cut.full, cut.near, want)
	}
	if cut.recorded["b"] != 9 || cut.recorded["a"] != 1 {
		t.Errorf("recorded %v; the cut variant at its fastest run, the others at their median", cut.recorded)
	}
}
