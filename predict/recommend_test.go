package predict

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"smart"
)

func timed(gpu string, ms, price float64) GPUTime {
	g := GPUTime{GPU: gpu, Best: &Choice{OC: smart.Combination(smart.ST), TimeMs: ms}}
	if price > 0 {
		g.Price = &smart.Price{USDPerHour: price}
	}
	return g
}

// TestRankAll checks the ranking against numbers worked out by hand: 1000 steps of 2 ms on a
// $3.60 GPU take 2 s and cost 2/3600*3.60 = $0.002, 500,000 steps per dollar.
func TestRankAll(t *testing.T) {
	times := []GPUTime{
		timed("slow-cheap", 4, 0.9),     // 4 s, $0.001, 1,000,000 steps/$
		timed("fast-dear", 1, 7.2),      // 1 s, $0.002, 500,000 steps/$
		timed("mid", 2, 3.6),            // 2 s, $0.002, 500,000 steps/$
		timed("owned", 3, 0),            // 3 s, no price
		{GPU: "amd", Reason: "AMD GPU"}, // not predicted
	}
	r, err := rankAll(times, Workload{Steps: 1000}, "owned")
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []string{"fast-dear", "mid", "owned", "slow-cheap", "amd"}
	wantSeconds := []float64{1, 2, 3, 4, 0}
	wantCost := []float64{0.002, 0.002, math.NaN(), 0.001, math.NaN()}
	wantCostRank := []int{2, 3, 0, 1, 0}
	for i, g := range r.GPUs {
		if g.GPU != wantOrder[i] || math.Abs(g.Seconds-wantSeconds[i]) > 1e-12 || g.CostRank != wantCostRank[i] {
			t.Errorf("rank %d: %s %v s cost rank %d; want %s %v s %d", i+1, g.GPU, g.Seconds, g.CostRank, wantOrder[i], wantSeconds[i], wantCostRank[i])
		}
		if (g.CostUSD == nil) != math.IsNaN(wantCost[i]) || g.CostUSD != nil && math.Abs(*g.CostUSD-wantCost[i]) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", g.GPU, g.CostUSD, wantCost[i])
		}
	}
	if r.GPUs[2].StepsPerUSD != 0 || math.Abs(r.GPUs[1].StepsPerUSD-500_000) > 1e-6 {
		t.Errorf("steps per dollar: %v %v", r.GPUs[1].StepsPerUSD, r.GPUs[2].StepsPerUSD)
	}
	if r.Fastest != "fast-dear" || r.Cheapest != "slow-cheap" {
		t.Errorf("fastest %s, cheapest %s", r.Fastest, r.Cheapest)
	}
	h := r.Have
	if h == nil || h.Speedup != 3 || h.CheapestSpeedup != 0.75 || h.CostRatio != 0 {
		t.Fatalf("have: %+v", h)
	}
	if want := "the fast-dear is predicted 3.00x faster than your owned; if you rent, the slow-cheap does the most steps per dollar (0.75x your speed, $0.001 per 1000 steps)"; h.Advice != want {
		t.Errorf("advice %q\nwant   %q", h.Advice, want)
	}

	// Renting for 10 hours: steps done and the same cost ranking.
	r, err = rankAll(times, Workload{Hours: 10}, "mid")
	if err != nil {
		t.Fatal(err)
	}
	if g := r.GPUs[1]; g.GPU != "mid" || g.StepsDone != 18e6 || *g.CostUSD != 36 {
		t.Errorf("10 hours of mid: %v steps for %v", g.StepsDone, *g.CostUSD)
	}
	if want := "the fast-dear is predicted 2.00x faster than your mid; renting the slow-cheap instead would cost 50% less per step (0.50x the speed)"; r.Have.Advice != want {
		t.Errorf("advice %q\nwant   %q", r.Have.Advice, want)
	}
	if _, err := rankAll([]GPUTime{{GPU: "x", Reason: "no"}}, Workload{Steps: 1}, ""); err == nil {
		t.Error("no prediction at all: no error")
	}
}

func TestRecommendSample(t *testing.T) {
	p := defaultPredictor(t)
	st := sample(t, "j2d9pt")
	r, err := p.Recommend(context.Background(), Input{Stencil: st}, []string{"a100", "t4", "l4", "h100", "w7800"}, "rtx2080ti", Workload{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Workload.Steps != int64(st.Steps) {
		t.Errorf("workload %v, want the stencil's %d steps", r.Workload, st.Steps)
	}
	names := map[string]bool{}
	for _, g := range r.GPUs {
		names[g.GPU] = true
	}
	if len(r.GPUs) != 6 || !names["RTX-2080-Ti"] || !names["W7800"] {
		t.Errorf("GPUs %v: want the five asked for and the one you have", names)
	}
	fast, cheap := r.find(r.Fastest), r.find(r.Cheapest)
	for _, g := range r.GPUs {
		if g.Best != nil && g.Best.TimeMs < fast.Best.TimeMs {
			t.Errorf("%s is faster than the fastest %s", g.GPU, r.Fastest)
		}
		if g.CostUSD != nil && *g.CostUSD < *cheap.CostUSD {
			t.Errorf("%s is cheaper than the most cost-efficient %s", g.GPU, r.Cheapest)
		}
	}
	if r.find("RTX-2080-Ti").Price != nil || r.Have == nil || !strings.Contains(r.Have.Advice, "RTX-2080-Ti") {
		t.Errorf("have: %+v", r.Have)
	}
	if _, err := p.Recommend(context.Background(), Input{Stencil: st}, nil, "mi250x", Workload{}); err == nil || !strings.Contains(err.Error(), "the GPU you have: GPU MI250X is made by AMD") || !errors.Is(err, smart.ErrNotCUDA) {
		t.Errorf("an AMD GPU you have: %v", err)
	}
}

func ExampleWorkload() {
	fmt.Println(Workload{Steps: 100000})
	fmt.Println(Workload{Hours: 2.5})
	// Output:
	// 100000 steps
	// 2.5 hours
}

// TestFormatUSD checks that amounts keep three significant digits or more at every scale: a
// short workload's costs (fractions of a cent) must still differ, and a huge one stay short.
func TestFormatUSD(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "$0"},
		{2.47e-7, "$2.47e-07"},
		{1.2e-5, "$1.2e-05"},
		{0.00012345, "$0.000123"},
		{0.001, "$0.001"},
		{0.0099996, "$0.01"},
		{0.0552, "$0.0552"},
		{0.1193, "$0.1193"},
		{1.5, "$1.50"},
		{123.4, "$123"},
		{999999.4, "$999999"},
		{2.5e6, "$2.5e+06"},
		{3.4e296, "$3.4e+296"},
	}
	for _, tc := range tests {
		if got := FormatUSD(&tc.v); got != tc.want {
			t.Errorf("FormatUSD(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	if got := FormatUSD(nil); got != "-" {
		t.Errorf("FormatUSD(nil) = %q, want -", got)
	}
	// Costs of 10 steps on GPUs whose cost ranks differ print differently.
	a, b := 1.23e-6, 1.31e-6
	if FormatUSD(&a) == FormatUSD(&b) {
		t.Errorf("%v and %v both print %s", a, b, FormatUSD(&a))
	}
}

// TestRecommendAll: the recommendations come in the order of the inputs, as Recommend gives
// them; an input's error names its file and does not stop the others, and yield's error stops
// the run.
func TestRecommendAll(t *testing.T) {
	p := defaultPredictor(t)
	ctx := context.Background()
	ins := []Input{{Stencil: sample(t, "j2d5pt"), File: "a.json"}, {Stencil: sample(t, "j3d7pt"), File: "b.json"}}
	gpus := []string{"a100", "t4"}
	var got []*Recommendation
	if err := p.RecommendAll(ctx, ins, gpus, "", Workload{}, func(i int, r *Recommendation) error {
		if i != len(got) {
			t.Errorf("recommendation %d came as the %d-th", i, len(got))
		}
		got = append(got, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, in := range ins {
		want, err := p.Recommend(ctx, in, gpus, "", Workload{})
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Stencil.ID != want.Stencil.ID || got[i].Fastest != want.Fastest || got[i].GPUs[0].Best.TimeMs != want.GPUs[0].Best.TimeMs {
			t.Errorf("input %d: got %s fastest %s, want %s fastest %s", i, got[i].Stencil.Name, got[i].Fastest, want.Stencil.Name, want.Fastest)
		}
	}
	if err := p.RecommendAll(ctx, ins, []string{"nosuch"}, "", Workload{}, func(int, *Recommendation) error { return nil }); err == nil || !strings.HasPrefix(err.Error(), "a.json: ") || !strings.Contains(err.Error(), "\nb.json: ") {
		t.Errorf("an unknown GPU: %v, want an error naming a.json, then b.json", err)
	}
	// A stencil that fails does not stop the next.
	tiny := *sample(t, "j2d5pt")
	tiny.Grid = [3]int{8, 8}
	var yielded []int
	err := p.RecommendAll(ctx, []Input{{Stencil: &tiny, File: "tiny.json"}, ins[1]}, gpus, "", Workload{}, func(i int, _ *Recommendation) error { yielded = append(yielded, i); return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "tiny.json: ") || !slices.Equal(yielded, []int{1}) {
		t.Errorf("a grid with no room for a block: %v, yielded %v; want an error naming tiny.json and the next one yielded", err, yielded)
	}
	stop := errors.New("stop")
	calls := 0
	if err := p.RecommendAll(ctx, ins, gpus, "", Workload{}, func(int, *Recommendation) error { calls++; return stop }); err != stop || calls != 1 {
		t.Errorf("yield's error: got %v after %d calls, want stop after 1", err, calls)
	}
}

// TestRecommendInterrupted: an interrupted recommendation says so once, naming its file, not
// once per GPU ranked (every GPU moved from the H100 shares its search, and so its error), with
// the measured models and with the defaults searching each GPU.
func TestRecommendInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, transfer := range []bool{true, false} {
		p := defaultPredictor(t)
		p.Transfer = transfer
		err := p.RecommendAll(ctx, []Input{{Stencil: sample(t, "j3d7pt"), File: "a.json"}}, nil, "", Workload{}, func(int, *Recommendation) error { return nil })
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "a.json: ") || strings.Contains(err.Error(), "\n") {
			t.Errorf("transfer %v: %v; want one line naming a.json, of an interruption", transfer, err)
		}
	}
}

// TestRecommendAllInterruptedPart: a context ended after the first of several stencils returns
// the failures before it, the stencil it cut short, and how many it left unreached, naming the
// first and the last of them.
func TestRecommendAllInterruptedPart(t *testing.T) {
	p := defaultPredictor(t)
	// A cause, as signal.NotifyContext gives one ("interrupt signal received"): the error still
	// ends "context canceled", which the command line words as interrupted.
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(errors.New("interrupt signal received")) }
	defer cancel()
	tiny := *sample(t, "j2d5pt")
	tiny.Grid = [3]int{8, 8}
	ins := []Input{{Stencil: &tiny, File: "tiny.json"}, {Stencil: sample(t, "j2d5pt"), File: "a.json"}, {Stencil: sample(t, "j3d7pt"), File: "b.json"},
		{Stencil: sample(t, "j2d9pt"), File: "c.json"}, {Stencil: sample(t, "j3d27pt"), File: "d.json"}}
	var yielded []int
	err := p.RecommendAll(ctx, ins, []string{"a100", "t4"}, "", Workload{}, func(i int, _ *Recommendation) error {
		yielded = append(yielded, i)
		cancel() // Ctrl-C as the first recommendation comes
		return nil
	})
	lines := strings.Split(fmt.Sprint(err), "\n")
	if !errors.Is(err, context.Canceled) || !slices.Equal(yielded, []int{1}) || len(lines) != 3 || !strings.HasPrefix(lines[0], "tiny.json: ") ||
		!strings.HasPrefix(lines[1], "b.json: ") || lines[2] != "2 stencils not reached (c.json to d.json): context canceled" {
		t.Errorf("yielded %v, error:\n%v\nwant 1 yielded, and tiny.json's failure, b.json interrupted and 2 stencils not reached (c.json to d.json)", yielded, err)
	}
	// The last stencil interrupted leaves none unreached; the one before it leaves one.
	for _, tc := range []struct {
		ins  []Input
		last string
	}{
		{ins[1:3], "b.json: "},
		{ins[1:4], "1 stencil not reached (c.json): context canceled"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		err := p.RecommendAll(ctx, tc.ins, []string{"a100", "t4"}, "", Workload{}, func(int, *Recommendation) error { cancel(); return nil })
		lines := strings.Split(fmt.Sprint(err), "\n")
		if !strings.HasPrefix(lines[len(lines)-1], tc.last) || !strings.HasPrefix(lines[0], "b.json: ") {
			t.Errorf("%d stencils: %v; want b.json interrupted, then %q", len(tc.ins), err, tc.last)
		}
	}
}

// TestCheckGPUNames: an unknown GPU to rank, an unknown or AMD GPU of the user's, and GPUs to
// rank that are all AMD are refused, each saying which; AMD GPUs among NVIDIA ones are not.
func TestCheckGPUNames(t *testing.T) {
	p := defaultPredictor(t)
	for _, c := range []struct {
		name   string
		gpus   []string
		have   string
		want   string // "" for no error
		isHave bool
	}{
		{"NVIDIA", []string{"a100", "t4"}, "v100", "", false},
		{"AMD among NVIDIA", []string{"a100", "w6600"}, "", "", false},
		{"none", nil, "", "", false},
		{"unknown to rank", []string{"a100", "nosuch"}, "", `unknown GPU "nosuch"`, false},
		{"only AMD", []string{"w6600", "mi250x"}, "", "the GPUs to rank are only W6600 (AMD), MI250X (AMD); ", false},
		{"unknown of yours", nil, "nosuch", `the GPU you have: unknown GPU "nosuch"`, true},
		{"AMD of yours", []string{"w6600"}, "w6600", "the GPU you have: GPU W6600 is made by AMD", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := p.CheckGPUNames(c.gpus, c.have)
			if c.want == "" {
				if err != nil {
					t.Fatalf("got %v, want none", err)
				}
				return
			}
			var ge *GPUNameError
			if !errors.As(err, &ge) || ge.Have != c.isHave || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v (%T), want a GPUNameError (have %v) beginning %q", err, err, c.isHave, c.want)
			}
		})
	}
}

func TestWorkloadString(t *testing.T) {
	for _, tc := range []struct {
		w    Workload
		want string
	}{{Workload{Steps: 1}, "1 step"}, {Workload{Steps: 10}, "10 steps"}, {Workload{Hours: 1}, "1 hour"}, {Workload{Hours: 2.5}, "2.5 hours"}, {Workload{Steps: 5, Hours: 0.5}, "0.5 hours"}} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("%+v: %q; want %q", tc.w, got, tc.want)
		}
	}
}
