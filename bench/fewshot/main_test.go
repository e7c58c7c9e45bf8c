package main

import (
	"math"
	"slices"
	"testing"

	"smart"
	"smart/transfer"
)

// TestBaseline: a source at half the target's times, the target's GPU with twice the
// bandwidth: the bandwidth ratio (k = 0) predicts a quarter of each time, 75% off; any median
// of drawn ratios (k > 0) predicts them exactly.
func TestBaseline(t *testing.T) {
	src := transfer.Source{GPU: smart.GPU{Name: "S", BandwidthGBs: 1000}}
	var target []smart.Measurement
	for i := 1; i <= 10; i++ {
		s := smart.Setting{"a": i}
		src.Rows = append(src.Rows, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: float64(i)})
		target = append(target, smart.Measurement{Kernel: "k", Setting: s, Status: smart.StatusOK, TimeMs: 2 * float64(i)})
	}
	tgt := smart.GPU{Name: "T", BandwidthGBs: 2000}
	if got := baseline([]transfer.Source{src}, tgt, target, 0); math.Abs(got-75) > 1e-9 {
		t.Errorf("k=0: MAPE %g, want 75", got)
	}
	if got := baseline([]transfer.Source{src}, tgt, target, 4); math.Abs(got) > 1e-9 {
		t.Errorf("k=4: MAPE %g, want 0", got)
	}
}

func TestMeanScoreSkipsMissingCoverage(t *testing.T) {
	half := 0.5
	m := meanScore([]transfer.Score{{N: 2, MAPE: 10, Top1: 1, Coverage: &half}, {N: 3, MAPE: 20, Top1: 0.5}})
	if m.N != 5 || m.MAPE != 15 || m.Top1 != 0.75 || m.Coverage == nil || *m.Coverage != 0.5 {
		t.Errorf("mean %+v (coverage %v)", m, m.Coverage)
	}
}

// TestPaired: a stencil counts where the source measured it and the target holds at least
// minPaired rows; in order of the target's stencils.
func TestPaired(t *testing.T) {
	rows := func(n int) []smart.Measurement { return make([]smart.Measurement, n) }
	byA := map[string][]smart.Measurement{"a": rows(5), "b": rows(120), "c": rows(120)}
	byB := map[string][]smart.Measurement{"a": rows(minPaired), "b": rows(minPaired - 1), "c": rows(120), "d": rows(120)}
	if got := paired(byA, byB); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("paired = %v, want [a c] (b begun on the target, d not on the source)", got)
	}
}
