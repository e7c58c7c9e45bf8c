package tuner

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"smart"
	"smart/space"
)

// testSpace is a small constrained space: a and b powers of two with a*b <= 32, c a flag, d an
// enumeration 1..3; 17*2*3 = 102 settings.
func testSpace(t testing.TB) *space.Space {
	t.Helper()
	params := []space.Param{
		{Name: "a", Values: []int{1, 2, 4, 8, 16}},
		{Name: "b", Values: []int{1, 2, 4, 8}, Constraints: []space.Constraint{{
			Name: "a*b <= 32", Reads: []string{"a", "b"}, Fn: func(v []int) bool { return v[0]*v[1] <= 32 }}}},
		{Name: "c", Values: []int{0, 1}},
		{Name: "d", Values: []int{1, 2, 3}},
	}
	sp, err := space.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// testTime is the synthetic run time: a bowl in log2 a and log2 b with its minimum 1 ms at
// a=4, b=2, c=0, d=2, an interaction of b with d, and failures (a launch error) at a=16, c=1.
func testTime(s smart.Setting) (float64, bool) {
	if s["a"] == 16 && s["c"] == 1 {
		return 0, false
	}
	la, lb := math.Log2(float64(s["a"])), math.Log2(float64(s["b"]))
	d := float64(s["d"] - 2)
	return 1 + (la-2)*(la-2) + (lb-1)*(lb-1) + 0.5*float64(s["c"]) + d*d*(1+lb), true
}

// fakeEval answers testTime and checks the tuner's contract: every query is a valid setting of
// the space, asked once.
type fakeEval struct {
	t     testing.TB
	sp    *space.Space
	mu    sync.Mutex
	calls map[string]int
	batch int // EvaluateBatch calls
}

func newFakeEval(t testing.TB, sp *space.Space) *fakeEval {
	return &fakeEval{t: t, sp: sp, calls: map[string]int{}}
}

func (f *fakeEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.sp.Check(q.Setting); err != nil {
		f.t.Errorf("invalid setting evaluated: %v", err)
	}
	key := q.Setting.String()
	if f.calls[key]++; f.calls[key] > 1 {
		f.t.Errorf("setting %s evaluated %d times", key, f.calls[key])
	}
	m := smart.Measurement{Setting: q.Setting, Source: smart.Simulated, Status: smart.StatusOK}
	v, ok := testTime(q.Setting)
	if !ok {
		m.Status, m.Error = smart.StatusLaunchError, "too many registers"
		return m, nil
	}
	m.TimeMs = v
	return m, nil
}

func (f *fakeEval) evaluations() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return n
}

// batchEval is fakeEval taking batches.
type batchEval struct{ *fakeEval }

func (b batchEval) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	b.mu.Lock()
	b.batch++
	b.mu.Unlock()
	out := make([]smart.Measurement, len(qs))
	for i, q := range qs {
		m, err := b.Evaluate(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = m
	}
	return out, nil
}

func testProblem(t testing.TB) (Problem, *fakeEval) {
	sp := testSpace(t)
	ev := newFakeEval(t, sp)
	return Problem{Variants: []Variant{{Space: sp}}, Evaluator: ev}, ev
}

// bruteOptimum is the fastest testTime over the space, computed without the tuner.
func bruteOptimum(sp *space.Space) (float64, smart.Setting) {
	best, arg := math.Inf(1), smart.Setting(nil)
	for s := range sp.All() {
		if v, ok := testTime(s); ok && v < best {
			best, arg = v, s
		}
	}
	return best, arg
}

// proposer is a Method that proposes a fixed list of candidates, one call each.
type proposer []Candidate

func (proposer) Name() string { return "proposer" }

func (p proposer) Search(ctx context.Context, r *Run) error {
	for _, c := range p {
		if _, err := r.Evaluate(ctx, []Candidate{c}); err != nil {
			return err
		}
	}
	return nil
}

func set(kv ...int) smart.Setting {
	names := []string{"a", "b", "c", "d"}
	s := smart.Setting{}
	for i, v := range kv {
		s[names[i]] = v
	}
	return s
}

func historyKey(res Result) string {
	s := ""
	for _, o := range res.History {
		s += fmt.Sprintf("%d:%s;", o.Variant, o.Setting)
	}
	return s
}
