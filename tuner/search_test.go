package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/internal/testctx"
)

// methods are the strategies every contract test runs, with settings small enough for the
// 90-setting test space.
func methods() []Method {
	return []Method{
		&Random{},
		Exhaustive{},
		&IterML{Pick: 8, Threads: 1},
		&IterML{Pick: 8, Model: Trees},
		&IterML{Pick: 8, Model: CART},
		&IterML{Pick: 8, Model: KNN},
		&IterML{Pick: 8, Model: MLP},
		&CSTuner{Initial: 16},
		&Pipeline{},
		&Bayes{},
		&Descent{Samples: 8, Restart: true},
	}
}

// TestSearchContract checks what Search promises for every strategy: the budget holds, no
// setting is evaluated twice or when invalid (fakeEval fails the test), failures are counted
// and recorded, the trace is the running minimum, the best is the fastest evaluation, and the
// same seed gives the same search.
func TestSearchContract(t *testing.T) {
	for _, m := range methods() {
		for _, budget := range []int{1, 25, 0} {
			t.Run(fmt.Sprintf("%s/%T/budget=%d", m.Name(), m, budget), func(t *testing.T) {
				p, ev := testProblem(t)
				res, err := Search(context.Background(), p, Budget{Evaluations: budget}, m, 7)
				if err != nil {
					t.Fatal(err)
				}
				if budget > 0 && res.Evaluations > budget {
					t.Errorf("%d evaluations, budget %d", res.Evaluations, budget)
				}
				if budget > 0 && res.Stop != StopEvaluations && res.Stop != StopDone {
					t.Errorf("stop %q", res.Stop)
				}
				if got := ev.evaluations(); got != res.Evaluations {
					t.Errorf("evaluator saw %d queries, result says %d", got, res.Evaluations)
				}
				if len(res.Trace) != res.Evaluations || len(res.History) != res.Evaluations {
					t.Fatalf("trace %d, history %d, evaluations %d", len(res.Trace), len(res.History), res.Evaluations)
				}
				best, failed := math.Inf(1), 0
				for i, o := range res.History {
					if o.N != i+1 {
						t.Errorf("outcome %d numbered %d", i, o.N)
					}
					if _, ok := testTime(o.Setting); !ok {
						failed++
						if o.OK() {
							t.Errorf("failed setting %s recorded as ok", o.Setting)
						}
					} else {
						best = min(best, o.Value)
					}
					if res.Trace[i] != best {
						t.Errorf("trace[%d] = %v, running minimum %v", i, res.Trace[i], best)
					}
				}
				if failed != len(res.Failures) {
					t.Errorf("%d failures recorded, %d in the history", len(res.Failures), failed)
				}
				if res.Best.Value != best {
					t.Errorf("best %v, fastest evaluated %v", res.Best.Value, best)
				}
				p2, _ := testProblem(t)
				again, err := Search(context.Background(), p2, Budget{Evaluations: budget}, m, 7)
				if err != nil {
					t.Fatal(err)
				}
				if historyKey(again) != historyKey(res) {
					t.Errorf("same seed, different searches:\n%s\n%s", historyKey(res), historyKey(again))
				}
			})
		}
	}
}

// TestFindsOptimum: with no budget every strategy ends, and the exhaustive search finds the
// brute-force optimum after evaluating the whole space.
func TestFindsOptimum(t *testing.T) {
	sp := testSpace(t)
	want, arg := bruteOptimum(sp)
	n, _ := sp.Len()
	for _, m := range methods() {
		p, _ := testProblem(t)
		res, err := Search(context.Background(), p, Budget{}, m, 3)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop != StopDone {
			t.Errorf("%s: stop %q without a budget", m.Name(), res.Stop)
		}
		switch m.(type) {
		case Exhaustive, *Random, *Pipeline:
			// These run until the space is spent.
			if res.Evaluations != int(n) {
				t.Errorf("%s: %d evaluations of %d settings", m.Name(), res.Evaluations, n)
			}
			if res.Best.Value != want || res.Best.Setting.String() != arg.String() {
				t.Errorf("%s: best %s %v, want %s %v", m.Name(), res.Best.Setting, res.Best.Value, arg, want)
			}
		}
	}
}

func TestTargetStops(t *testing.T) {
	p, _ := testProblem(t)
	want, _ := bruteOptimum(p.Variants[0].Space)
	res, err := Search(context.Background(), p, Budget{Target: want * 1.5}, &Random{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopTarget || res.Best.Value > want*1.5 {
		t.Errorf("stop %q, best %v, target %v", res.Stop, res.Best.Value, want*1.5)
	}
	if n := len(res.Trace); n > 1 && res.Trace[n-2] <= want*1.5 {
		t.Errorf("the target was reached before the last evaluation: %v", res.Trace)
	}
}

func TestTimeBudget(t *testing.T) {
	p, ev := testProblem(t)
	res, err := Search(context.Background(), p, Budget{Time: time.Nanosecond}, &Random{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopTime || ev.evaluations() != res.Evaluations {
		t.Errorf("stop %q after %d evaluations", res.Stop, res.Evaluations)
	}
}

// stallEval answers the first `finish` queries at once, then stalls on the next, as a GPU does
// on a slow variant, until the context ends or, failing that, the test's (testctx); cut off,
// it returns the finished rows (a batch) with the context's error.
type stallEval struct {
	batchEval
	finish int
	test   context.Context
	waited bool // the test's context ended first: the search's deadline never reached the evaluator
}

func (s *stallEval) stall(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-s.test.Done():
		s.waited = true
		return nil
	}
}

func (s *stallEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if s.finish == 0 {
		if err := s.stall(ctx); err != nil {
			return smart.Measurement{}, err
		}
	}
	s.finish--
	return s.batchEval.Evaluate(ctx, q)
}

func (s *stallEval) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	out := make([]smart.Measurement, len(qs))
	for i, q := range qs {
		m, err := s.Evaluate(ctx, q)
		if err != nil {
			return out, err
		}
		out[i] = m
	}
	return out, nil
}

// singleEval hides stallEval's batches.
type singleEval struct{ *stallEval }

func (s singleEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	return s.stallEval.Evaluate(ctx, q)
}

// TestTimeBudgetCutsEvaluation: the time budget reaches into an evaluation in flight, so a slow
// variant cannot stretch the search past it; what finished before counts, the rest does not.
// The budget is 50 times what the 7 evaluations before the stall take (at least 200 ms),
// measured as loaded as the machine is now.
func TestTimeBudgetCutsEvaluation(t *testing.T) {
	sp := testSpace(t)
	began := time.Now()
	if _, err := Search(context.Background(), Problem{Variants: []Variant{{Space: sp}}, Evaluator: batchEval{newFakeEval(t, sp)}}, Budget{Evaluations: 7}, &Random{Batch: 5}, 1); err != nil {
		t.Fatal(err)
	}
	budget := max(200*time.Millisecond, 50*time.Since(began))
	for _, batched := range []bool{true, false} {
		stall := &stallEval{batchEval: batchEval{newFakeEval(t, sp)}, finish: 7, test: testctx.Context(t)}
		var ev smart.Evaluator = stall
		if !batched {
			ev = singleEval{stall}
		}
		p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: ev}
		res, err := Search(context.Background(), p, Budget{Time: budget}, &Random{Batch: 5}, 1)
		if err != nil {
			t.Fatalf("batched %v: %v", batched, err)
		}
		if stall.waited || res.Stop != StopTime || res.Evaluations != 7 || len(res.Trace) != 7 {
			t.Errorf("batched %v: stop %q after %d evaluations (trace %d), stalled to the test's deadline %v; want time after 7",
				batched, res.Stop, res.Evaluations, len(res.Trace), stall.waited)
		}
		for i, o := range res.History {
			if o.Measurement.Status == "" {
				t.Errorf("batched %v: outcome %d is a variant the deadline cut off", batched, i)
			}
		}
	}
}

// TestCacheAndFailures: a setting proposed again is answered from the cache without counting,
// a failed one included, and an invalid one is an error that evaluates nothing.
func TestCacheAndFailures(t *testing.T) {
	fail := set(16, 1, 1, 1)
	ok := set(4, 2, 0, 2)
	p, ev := testProblem(t)
	res, err := Search(context.Background(), p, Budget{}, proposer{{Setting: fail}, {Setting: ok}, {Setting: fail}, {Setting: ok}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Evaluations != 2 || ev.evaluations() != 2 || len(res.Failures) != 1 {
		t.Errorf("%d evaluations (evaluator %d), %d failures; want 2, 2, 1", res.Evaluations, ev.evaluations(), len(res.Failures))
	}
	if res.Best.Value != 1 || !math.IsInf(res.Trace[0], 1) {
		t.Errorf("best %v, trace %v", res.Best.Value, res.Trace)
	}

	p, ev = testProblem(t)
	_, err = Search(context.Background(), p, Budget{}, proposer{{Setting: ok}, {Setting: set(16, 4, 0, 1)}}, 1)
	if err == nil || !strings.Contains(err.Error(), "a*b <= 32") {
		t.Errorf("an invalid setting gave %v, want the violated constraint", err)
	}
	if ev.evaluations() != 1 {
		t.Errorf("%d evaluations, want only the valid one", ev.evaluations())
	}
}

func TestBatchEvaluator(t *testing.T) {
	sp := testSpace(t)
	ev := batchEval{newFakeEval(t, sp)}
	p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: ev}
	res, err := Search(context.Background(), p, Budget{Evaluations: 12}, &Random{Batch: 5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Evaluations != 12 || ev.batch != 3 {
		t.Errorf("%d evaluations in %d batches; want 12 in 3 (5, 5 and the 2 the budget leaves)", res.Evaluations, ev.batch)
	}
}

func TestProblemErrors(t *testing.T) {
	p, _ := testProblem(t)
	cases := []struct {
		name string
		p    Problem
		b    Budget
		m    Method
		want string
	}{
		{"no variants", Problem{Evaluator: p.Evaluator}, Budget{}, &Random{}, "no space"},
		{"no evaluator", Problem{Variants: p.Variants}, Budget{}, &Random{}, "no evaluator"},
		{"negative budget", p, Budget{Evaluations: -1}, &Random{}, "negative"},
		{"bad cut ratio", p, Budget{}, &IterML{CutRatio: 1}, "cut ratio"},
		{"NaN cut ratio", p, Budget{}, &IterML{CutRatio: math.NaN()}, "cut ratio"},
		{"NaN pick ratio", p, Budget{}, &IterML{PickRatio: math.NaN()}, "pick ratio"},
		{"NaN cap", p, Budget{}, &Bayes{Cap: math.NaN()}, "cap"},
		{"bad model", p, Budget{}, &IterML{Model: "svm"}, "unknown in-loop model"},
		{"cstuner on two spaces", Problem{Variants: append(p.Variants, p.Variants...), Evaluator: p.Evaluator}, Budget{}, &CSTuner{}, "one space"},
	}
	for _, c := range cases {
		_, err := Search(context.Background(), c.p, c.b, c.m, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// errEval fails as an evaluator (not as a variant) after n answers.
type errEval struct {
	*fakeEval
	n int
}

func (e *errEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	if e.n == 0 {
		return smart.Measurement{}, errors.New("device lost")
	}
	e.n--
	return e.fakeEval.Evaluate(ctx, q)
}

func TestEvaluatorErrorKeepsResult(t *testing.T) {
	sp := testSpace(t)
	p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: &errEval{fakeEval: newFakeEval(t, sp), n: 3}}
	res, err := Search(context.Background(), p, Budget{}, &Random{}, 1)
	if err == nil || !strings.Contains(err.Error(), "device lost") {
		t.Fatalf("error %v, want the evaluator's", err)
	}
	if res.Evaluations != 3 || res.Best.Setting == nil || res.Stop != StopError {
		t.Errorf("the result lost the %d evaluations before the failure: %+v (stop %q)", 3, res.Evaluations, res.Stop)
	}
}

// allFail fails every setting, as a replayed cache of failed configurations does.
type allFail struct{}

func (allFail) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	return smart.Measurement{Setting: q.Setting, Status: smart.StatusLaunchError, Error: "fails"}, nil
}

// TestEveryFailure runs every strategy where no setting runs: each must stop, without error
// and without a best setting, once it has evaluated what it will of the space (csTuner once
// sampled it for ever), every evaluation recorded as a failure.
func TestEveryFailure(t *testing.T) {
	for _, m := range methods() {
		t.Run(m.Name(), func(t *testing.T) {
			sp := testSpace(t)
			size, _ := sp.Len()
			done := make(chan error, 1)
			var res Result
			go func() {
				var err error
				res, err = Search(context.Background(), Problem{Variants: []Variant{{Space: sp}}, Evaluator: allFail{}}, Budget{Evaluations: 500}, m, 1)
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil || res.Best.Setting != nil || res.Evaluations == 0 || uint64(res.Evaluations) > size || len(res.Failures) != res.Evaluations {
					t.Errorf("error %v, best %v, %d evaluations of a space of %d, %d failures", err, res.Best.Setting, res.Evaluations, size, len(res.Failures))
				}
			case <-testctx.Context(t).Done():
				t.Fatal("the search did not stop on a space where every setting fails")
			}
		})
	}
}
