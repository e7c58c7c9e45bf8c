package tuner

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"smart"
)

// TestDescentFindsOptimum descends the test space's bowl from a few draws: it reaches the
// optimum that brute force finds, evaluating valid settings once each (fakeEval holds both)
// and fewer of them than the space has; a lazy view of the same space gives the same search.
func TestDescentFindsOptimum(t *testing.T) {
	p, ev := testProblem(t)
	sp := p.Variants[0].Space
	want, arg := bruteOptimum(sp)
	m := &Descent{Samples: 6, Starts: 2}
	res, err := Search(context.Background(), p, Budget{}, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Value != want || res.Best.Setting.String() != arg.String() {
		t.Errorf("best %s in %v ms, want %s in %v ms", res.Best.Setting, res.Best.Value, arg, want)
	}
	if n := ev.evaluations(); n != res.Evaluations || n >= 102 || res.Stop != StopDone {
		t.Errorf("%d evaluations (the evaluator saw %d), stop %s: want fewer than the space's 102, done", res.Evaluations, n, res.Stop)
	}

	lazy := newFakeEval(t, sp)
	lres, err := Search(context.Background(), Problem{Variants: []Variant{{Lazy: sp.Lazy()}}, Evaluator: batchEval{lazy}}, Budget{}, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	if historyKey(lres) != historyKey(res) {
		t.Errorf("on the lazy view the search evaluated\n%s\nwant\n%s", historyKey(lres), historyKey(res))
	}
	if lazy.batch >= lres.Evaluations {
		t.Errorf("%d batches for %d evaluations: each round should be one batch", lazy.batch, lres.Evaluations)
	}
}

// TestDescentStartAndLimits: the valid Start settings are evaluated first, in order, and an
// invalid one (a*b = 64) never; with no samples and no rounds that is all; a budget stops the
// search.
func TestDescentStartAndLimits(t *testing.T) {
	p, _ := testProblem(t)
	start := []Candidate{{Setting: set(4, 2, 0, 2)}, {Setting: set(16, 4, 0, 1)}, {Setting: set(1, 1, 0, 1)}, {Variant: 5, Setting: set(1, 1, 0, 2)}}
	res, err := Search(context.Background(), p, Budget{}, &Descent{Samples: -1, Rounds: -1, Start: start}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := historyKey(res), "0:a=4,b=2,c=0,d=2;0:a=1,b=1,c=0,d=1;"; got != want {
		t.Errorf("evaluated %s, want %s", got, want)
	}

	p, _ = testProblem(t)
	res, err = Search(context.Background(), p, Budget{Evaluations: 10}, &Descent{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Evaluations != 10 || res.Stop != StopEvaluations {
		t.Errorf("%d evaluations, stop %s: want 10, %s", res.Evaluations, res.Stop, StopEvaluations)
	}
}

// TestDescentRestart: without Restart the search ends where its starts stop, before a budget
// of 60; with it the search draws and descends again and spends the budget, and without a
// budget it ends when the draws find nothing new, every setting evaluated once (fakeEval).
func TestDescentRestart(t *testing.T) {
	for _, c := range []struct {
		restart bool
		budget  int
		stop    Stop
	}{{false, 60, StopDone}, {true, 60, StopEvaluations}, {true, 0, StopDone}} {
		p, ev := testProblem(t)
		res, err := Search(context.Background(), p, Budget{Evaluations: c.budget}, &Descent{Samples: 4, Starts: 1, Restart: c.restart}, 1)
		if err != nil {
			t.Fatal(err)
		}
		n := res.Evaluations
		if res.Stop != c.stop || n != ev.evaluations() || c.stop == StopEvaluations && n != c.budget || c.stop == StopDone && n >= 60 && c.budget > 0 {
			t.Errorf("restart %v, budget %d: %d evaluations (the evaluator saw %d), stop %s; want stop %s", c.restart, c.budget, n, ev.evaluations(), res.Stop, c.stop)
		}
		if c.restart && c.budget == 0 && n < 60 {
			t.Errorf("restarting without a budget ended after %d of the 102 settings", n)
		}
	}
}

// TestDescentRand: a given source decides the draws, as the run's seed does otherwise.
func TestDescentRand(t *testing.T) {
	run := func(m *Descent, seed uint64) string {
		p, _ := testProblem(t)
		res, err := Search(context.Background(), p, Budget{}, m, seed)
		if err != nil {
			t.Fatal(err)
		}
		return historyKey(res)
	}
	a := run(&Descent{Samples: 4, Rand: rand.New(rand.NewPCG(9, 9))}, 1)
	if b := run(&Descent{Samples: 4, Rand: rand.New(rand.NewPCG(9, 9))}, 2); a != b {
		t.Errorf("the same source, other seeds: %s and %s", a, b)
	}
	if c := run(&Descent{Samples: 4}, 1); a == c {
		t.Errorf("the run's source and another drew the same: %s", a)
	}
}

// TestDescentVariants spreads the draws over the variants in turn and descends within each.
func TestDescentVariants(t *testing.T) {
	sp := testSpace(t)
	ev := &ocEval{t: t, calls: map[string]bool{}}
	p := Problem{Variants: []Variant{{OC: 1, Lazy: sp.Lazy()}, {OC: 2, Lazy: sp.Lazy()}}, Evaluator: ev}
	res, err := Search(context.Background(), p, Budget{}, &Descent{Samples: 8, Starts: 2}, 1)
	if err != nil {
		t.Fatal(err)
	}
	per := map[int]int{}
	for _, o := range res.History[:8] {
		per[o.Variant]++
	}
	if per[0] != 4 || per[1] != 4 {
		t.Errorf("the 8 draws fell %v on the two variants, want 4 each", per)
	}
	// OC 2 is 1 ms faster everywhere: the best is its optimum.
	if res.Best.Variant != 1 || res.Best.Setting.String() != "a=4,b=2,c=0,d=2" {
		t.Errorf("best %d: %s, want variant 1's a=4,b=2,c=0,d=2", res.Best.Variant, res.Best.Setting)
	}
}

// TestLazyVariantRefused: the strategies that need the generated space refuse a variant without
// one, before evaluating anything.
func TestLazyVariantRefused(t *testing.T) {
	sp := testSpace(t)
	ev := newFakeEval(t, sp)
	p := Problem{Variants: []Variant{{Lazy: sp.Lazy()}}, Evaluator: ev}
	_, err := Search(context.Background(), p, Budget{}, &Random{}, 1)
	if err == nil || !strings.Contains(err.Error(), "only a lazy space") || ev.evaluations() != 0 {
		t.Errorf("random on a lazy variant: %v after %d evaluations", err, ev.evaluations())
	}
}

// ocEval is testTime, 1 ms faster under OC 2, and fails a test on a query twice or invalid.
type ocEval struct {
	t     *testing.T
	calls map[string]bool
}

func (e *ocEval) Evaluate(_ context.Context, q smart.Query) (smart.Measurement, error) {
	key := q.OC.String() + " " + q.Setting.String()
	if e.calls[key] {
		e.t.Errorf("%s evaluated twice", key)
	}
	e.calls[key] = true
	v, ok := testTime(q.Setting)
	if !ok {
		return smart.Measurement{Status: smart.StatusLaunchError}, nil
	}
	if q.OC == 2 {
		v--
	}
	return smart.Measurement{Status: smart.StatusOK, TimeMs: v}, nil
}
