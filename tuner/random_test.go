package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"smart/space"
)

// bigSpace has 16^10 = 2^40 settings and no constraints: far more than any test draws.
func bigSpace(t testing.TB) *space.Space {
	t.Helper()
	var params []space.Param
	for i := range 10 {
		vals := make([]int, 16)
		for v := range vals {
			vals[v] = v
		}
		params = append(params, space.Param{Name: fmt.Sprintf("p%d", i), Values: vals})
	}
	sp, err := space.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// TestRandomHugeBatch checks that a Batch far above the budget or the space draws no more than
// can run: a round used to allocate and draw Batch settings (out of memory for --batch 1e8),
// of which the budget then ran a few.
func TestRandomHugeBatch(t *testing.T) {
	cases := []struct {
		name     string
		big      bool // the 2^40-setting space, else the 102-setting one
		batched  bool // the evaluator takes batches
		batch    int
		budget   int
		want     int
		wantStop Stop
	}{
		{"max batch, budget 50", true, false, math.MaxInt, 50, 50, StopEvaluations},
		{"max batch, budget 50, batch evaluator", true, true, math.MaxInt, 50, 50, StopEvaluations},
		{"2^50 batch, budget 7", true, true, 1 << 50, 7, 7, StopEvaluations},
		{"max batch, small space, budget 5", false, true, math.MaxInt, 5, 5, StopEvaluations},
		{"max batch, small space, no budget", false, true, math.MaxInt, 0, 102, StopDone},
		{"batch 30, budget 50", false, true, 30, 50, 50, StopEvaluations},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sp := testSpace(t)
			if tc.big {
				sp = bigSpace(t)
			}
			fe := newFakeEval(t, sp)
			p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: fe}
			if tc.batched {
				p.Evaluator = batchEval{fe}
			}
			res, err := Search(context.Background(), p, Budget{Evaluations: tc.budget}, &Random{Batch: tc.batch}, 3)
			if err != nil {
				t.Fatal(err)
			}
			if res.Evaluations != tc.want || res.Stop != tc.wantStop {
				t.Errorf("%d evaluations, stop %q; want %d, %q", res.Evaluations, res.Stop, tc.want, tc.wantStop)
			}
			if got := fe.evaluations(); got != tc.want {
				t.Errorf("the evaluator saw %d queries, want %d", got, tc.want)
			}
		})
	}
}

// TestRandomBatchSameSearch checks that capping a round at the budget changes no setting run:
// the settings a budget evaluates are the first ones drawn, whatever the Batch.
func TestRandomBatchSameSearch(t *testing.T) {
	var want string
	for _, batch := range []int{1, 3, 20, 1 << 40} {
		p, _ := testProblem(t)
		res, err := Search(context.Background(), p, Budget{Evaluations: 20}, &Random{Batch: batch}, 11)
		if err != nil {
			t.Fatal(err)
		}
		if got := historyKey(res); want == "" {
			want = got
		} else if got != want {
			t.Errorf("batch %d ran other settings:\n%s\nwant\n%s", batch, got, want)
		}
	}
}

// TestRandomCancelledWhileDrawing checks that a round of a huge batch without a budget, which
// would draw for hours, ends on a cancelled context.
func TestRandomCancelledWhileDrawing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sp := bigSpace(t)
	fe := newFakeEval(t, sp)
	p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: batchEval{fe}}
	res, err := Search(ctx, p, Budget{}, &Random{Batch: 1 << 50}, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if res.Stop != StopCancelled || res.Evaluations != 0 || fe.evaluations() != 0 {
		t.Errorf("stop %q, %d evaluations (%d seen); want cancelled, 0", res.Stop, res.Evaluations, fe.evaluations())
	}
}
