package tuner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"smart"
	"smart/dataset"
)

// timeTable answers a fixed time per value of parameter "a": a missing value is not measured,
// a non-positive time is a failed run.
type timeTable map[int]float64

func (tt timeTable) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	v, ok := tt[q.Setting["a"]]
	if !ok {
		return smart.Measurement{}, fmt.Errorf("a=%d: %w", q.Setting["a"], dataset.ErrNotMeasured)
	}
	if v <= 0 {
		return smart.Measurement{Status: smart.StatusLaunchError}, nil
	}
	return smart.Measurement{Status: smart.StatusOK, TimeMs: v, MeanMs: 2 * v}, nil
}

func TestTransfer(t *testing.T) {
	tr := Transfer{Sources: []smart.Evaluator{
		timeTable{1: 2, 2: 4, 3: 0},
		timeTable{1: 8, 2: 0, 3: 0},
		timeTable{1: 1},
	}}
	cases := []struct {
		a    int
		want float64 // 0: a failure
	}{
		{1, 2.5198420997897464}, // (2*8*1)^(1/3)
		{2, 4},                  // failed on the second GPU, not measured on the third
		{3, 0},                  // failed wherever it was measured
	}
	for _, c := range cases {
		m, err := tr.Evaluate(context.Background(), smart.Query{Setting: smart.Setting{"a": c.a}})
		if err != nil {
			t.Fatal(err)
		}
		if c.want == 0 {
			if m.OK() {
				t.Errorf("a=%d: %v ms, want a failure", c.a, m.TimeMs)
			}
			continue
		}
		if !m.OK() || math.Abs(m.TimeMs-c.want) > 1e-12 || m.Source != smart.Predicted {
			t.Errorf("a=%d: %+v, want %v ms predicted", c.a, m, c.want)
		}
	}
	// Its device says what the time is: the sources' geometric mean, not a time moved to a GPU.
	tr.What = "imported measurements on A, B"
	if m, _ := tr.Evaluate(context.Background(), smart.Query{Setting: smart.Setting{"a": 1}}); m.Device != "the geometric mean of imported measurements on A, B" {
		t.Errorf("device %q; want the geometric mean of what it rests on", m.Device)
	}
	// The objective is what is averaged: Kernel Tuner's mean time here is twice the median.
	tr.Objective = MeanTime
	if m, _ := tr.Evaluate(context.Background(), smart.Query{Setting: smart.Setting{"a": 2}}); math.Abs(m.TimeMs-8) > 1e-12 {
		t.Errorf("mean-time transfer of a=2: %v, want 8", m.TimeMs)
	}
	broken := Transfer{Sources: []smart.Evaluator{evalFunc(func() error { return errors.New("disk gone") })}}
	if _, err := broken.Evaluate(context.Background(), smart.Query{Setting: smart.Setting{"a": 1}}); err == nil {
		t.Error("an evaluator error of a source was swallowed")
	}
}

type evalFunc func() error

func (f evalFunc) Evaluate(context.Context, smart.Query) (smart.Measurement, error) {
	return smart.Measurement{}, f()
}

// truth is the test problem's run time as a second evaluator, so a prior can know it without
// spending the fake evaluator's one query per setting.
type truth struct{}

func (truth) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	v, ok := testTime(q.Setting)
	if !ok {
		return smart.Measurement{Status: smart.StatusLaunchError}, nil
	}
	return smart.Measurement{Status: smart.StatusOK, TimeMs: v}, nil
}

// TestBayesPrior checks that the first runs under a prior are the settings it ranks fastest:
// with the truth as the prior, the Initial fastest settings of the whole space, so the first
// run is the optimum.
func TestBayesPrior(t *testing.T) {
	p, _ := testProblem(t)
	res, err := Search(context.Background(), p, Budget{Evaluations: 30}, &Bayes{Prior: truth{}, Initial: 5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	var all []float64
	for s := range p.Variants[0].Space.All() {
		if v, ok := testTime(s); ok {
			all = append(all, v)
		}
	}
	slices.Sort(all)
	var first []float64
	for _, o := range res.History[:5] {
		first = append(first, o.Value)
	}
	slices.Sort(first)
	if !slices.Equal(first, all[:5]) {
		t.Errorf("first runs took %v ms; the five fastest settings take %v", first, all[:5])
	}
	if res.Trace[0] != all[0] {
		t.Errorf("first run %v ms, optimum %v", res.Trace[0], all[0])
	}
}

// TestCompare checks the comparison harness against searches run one by one, and that a
// contender built per case leaves out the cases it has nothing for.
func TestCompare(t *testing.T) {
	ctx := context.Background()
	mk := func(prior smart.Evaluator) Case {
		p, _ := testProblem(t)
		p.Evaluator = truth{} // many searches share it: the one-query-per-setting check is per search
		opt, n, err := Optimum(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return Case{Name: fmt.Sprintf("prior=%v", prior != nil), Problem: p, Optimum: opt, Size: n, Prior: prior}
	}
	cases := []Case{mk(nil), mk(truth{})}
	cs := []Contender{
		{Name: "random", New: func() Method { return &Random{} }, Seeds: 4},
		{Name: "bayes-prior", Seeds: 3, ForCase: func(c Case) Method {
			if c.Prior == nil {
				return nil
			}
			return &Bayes{Prior: c.Prior}
		}},
	}
	calls := 0 // unguarded: Compare calls done one search at a time (go test -race checks)
	reach, err := Compare(ctx, cases, cs, 50, 0.95, 2, func() { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls != Searches(cases, cs) {
		t.Errorf("done called %d times for %d searches", calls, Searches(cases, cs))
	}
	var got []string
	for _, r := range reach {
		got = append(got, r.Case+"/"+r.Method)
	}
	if want := []string{"prior=false/random", "prior=true/random", "prior=true/bayes-prior"}; !slices.Equal(got, want) {
		t.Fatalf("compared %v, want %v", got, want)
	}
	for seed, e := range reach[0].Evaluations {
		res, err := Search(ctx, cases[0].Problem, Budget{Evaluations: 50}, &Random{}, uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for i, v := range res.Trace {
			if v <= cases[0].Optimum/0.95 {
				want = i + 1
				break
			}
		}
		if e != want {
			t.Errorf("random seed %d: Compare says %d evaluations, the search alone %d", seed, e, want)
		}
	}
	if !slices.Equal(reach[2].Evaluations, []int{1, 1, 1}) {
		t.Errorf("with the truth as prior the first run should reach the goal: %v", reach[2].Evaluations)
	}

	// Seeds 2 and 3 on their own, as FirstSeed 2: the same searches as the last two above.
	shifted := []Contender{{Name: "random", New: func() Method { return &Random{} }, Seeds: 2, FirstSeed: 2}}
	again, err := Compare(ctx, cases[:1], shifted, 50, 0.95, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again[0].Evaluations, reach[0].Evaluations[2:]) || again[0].FirstSeed != 2 {
		t.Errorf("seeds 2-3 alone: %v (first seed %d); within seeds 0-3: %v", again[0].Evaluations, again[0].FirstSeed, reach[0].Evaluations)
	}
}

// TestCompareInterrupted cancels a comparison midway: it returns the cancellation with its rows,
// and every row whose seeds all finished equals the uninterrupted comparison's.
func TestCompareInterrupted(t *testing.T) {
	p, _ := testProblem(t)
	p.Evaluator = truth{}
	opt, n, err := Optimum(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	cases := []Case{{Name: "a", Problem: p, Optimum: opt, Size: n}, {Name: "b", Problem: p, Optimum: opt, Size: n}}
	cs := []Contender{{Name: "random", New: func() Method { return &Random{} }, Seeds: 5}}
	full, err := Compare(context.Background(), cases, cs, 50, 0.95, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := 0
	part, err := Compare(ctx, cases, cs, 50, 0.95, 1, func() {
		if done++; done == 6 { // the first row's 5 seeds and one of the second's
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || len(part) != 2 {
		t.Fatalf("%d rows, err %v; want 2 and the cancellation", len(part), err)
	}
	if !part[0].Complete() || part[1].Complete() || !full[0].Complete() || !full[1].Complete() {
		t.Fatalf("complete: first %v, second %v (uninterrupted: %v, %v)", part[0].Complete(), part[1].Complete(), full[0].Complete(), full[1].Complete())
	}
	if !slices.Equal(part[0].Evaluations, full[0].Evaluations) {
		t.Errorf("the finished row: %v, uninterrupted %v", part[0].Evaluations, full[0].Evaluations)
	}
}

// countingTable is a timeTable that counts the queries it answers and fails the disk at a=8.
type countingTable struct {
	timeTable
	calls int
}

func (c *countingTable) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	c.calls++
	if q.Setting["a"] == 8 {
		return smart.Measurement{}, errors.New("disk gone")
	}
	return c.timeTable.Evaluate(ctx, q)
}

// TestPriorTimes checks the prior's column of the trees: ln of its time, a finite value above
// all others where it has none, one query per setting, and a broken prior reported.
func TestPriorTimes(t *testing.T) {
	p, _ := testProblem(t)
	r := newRun(&p, Budget{}, 1)
	prior := &countingTable{timeTable: timeTable{1: 2, 2: 0.5, 4: 0}}
	pt := newPriorTimes(context.Background(), r, prior)
	c := func(a int) Candidate { return Candidate{Setting: set(a, 1, 0, 1)} }
	for _, tc := range []struct {
		a    int
		want float64
	}{
		{1, math.Ln2},
		{2, -math.Ln2},
		{4, math.MaxFloat32},  // a failed run
		{16, math.MaxFloat32}, // not measured
		{1, math.Ln2},         // asked again: remembered
	} {
		if got := pt.feature(c(tc.a)); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("a=%d: column %v, want %v", tc.a, got, tc.want)
		}
	}
	if prior.calls != 4 {
		t.Errorf("%d queries to the prior for 4 settings", prior.calls)
	}
	if pt.err != nil {
		t.Fatalf("a setting the prior lacks is an error: %v", pt.err)
	}
	if got := pt.fastest([]Candidate{c(16), c(1), c(4), c(2)}, 3); !slices.EqualFunc(got, []Candidate{c(2), c(1), c(16)}, func(x, y Candidate) bool { return x.Setting["a"] == y.Setting["a"] }) {
		t.Errorf("fastest 3 by the prior: %v", got)
	}
	pt.feature(c(8))
	if pt.err == nil || !strings.Contains(pt.err.Error(), "disk gone") {
		t.Errorf("broken prior: %v", pt.err)
	}
	// Search stops on it rather than treating the prior's failure as a slow setting.
	if _, err := Search(context.Background(), p, Budget{Evaluations: 20}, &Bayes{Prior: prior, Initial: 3}, 1); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("search under a broken prior: %v", err)
	}
}

// TestPriorForgetsSpentPools checks that a refill of Bayes's pool drops what the prior said of
// the spent pool but keeps it for the settings that ran, which the trees encode at every fit.
func TestPriorForgetsSpentPools(t *testing.T) {
	p, _ := testProblem(t)
	r := newRun(&p, Budget{}, 1)
	prior := &countingTable{timeTable: timeTable{1: 2, 2: 0.5, 4: 3, 16: 5}}
	pt := newPriorTimes(context.Background(), r, prior)
	c := func(a int) Candidate { return Candidate{Setting: set(a, 1, 0, 1)} }
	if _, err := r.Evaluate(context.Background(), []Candidate{c(1), c(2)}); err != nil {
		t.Fatal(err)
	}
	for _, a := range []int{1, 2, 4, 16} {
		pt.feature(c(a))
	}
	pt.forgetPool()
	if len(pt.memo) != 2 {
		t.Errorf("after a refill the memo holds %d settings, want the 2 that ran", len(pt.memo))
	}
	calls := prior.calls
	pt.feature(c(1))
	pt.feature(c(2))
	if prior.calls != calls {
		t.Error("the prior was asked again about a setting that ran")
	}
	if got := pt.feature(c(4)); prior.calls != calls+1 || math.Abs(got-math.Log(3)) > 1e-12 {
		t.Errorf("a forgotten setting: %d new queries, column %v (want 1, ln 3)", prior.calls-calls, got)
	}

	// A whole search through pools of 16: every setting once (the fake evaluator fails the test
	// on a repeat), each refill forgetting the spent pool.
	q, _ := testProblem(t)
	n := 0
	for range q.Variants[0].Space.All() {
		n++
	}
	res, err := Search(context.Background(), q, Budget{}, &Bayes{Prior: truth{}, Pool: 16, Initial: 3}, 2)
	if err != nil || res.Evaluations != n {
		t.Errorf("bayes through pools of 16: %d of %d settings, %v", res.Evaluations, n, err)
	}
}

// inverse is a prior that has every setting of testProblem the wrong way round: it ranks the
// slowest fastest.
type inverse struct{}

func (inverse) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	v, ok := testTime(q.Setting)
	if !ok {
		return smart.Measurement{Status: smart.StatusLaunchError}, nil
	}
	return smart.Measurement{Status: smart.StatusOK, TimeMs: 1 / v}, nil
}

// TestPipelineHedge checks the hedge on the surrogate's fastest settings: with the truth as the
// surrogate the first run is the optimum; with a surrogate that is wrong everywhere and no
// spread its fastest settings run in its order, HedgeFirst of them first and the others
// HedgeEvery to HedgeEvery+Batch evaluations apart, and the search itself never runs them (it
// learns from the surrogate's column that they are slow, not from the hedge's runs); spread
// out, the hedge runs spreadOut's settings of the surrogate's order, in the same places.
func TestPipelineHedge(t *testing.T) {
	ctx := context.Background()
	p, _ := testProblem(t)
	res, err := Search(ctx, p, Budget{Evaluations: 20}, &Pipeline{Surrogate: truth{}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if opt, _ := bruteOptimum(p.Variants[0].Space); res.Trace[0] != opt {
		t.Errorf("truth as surrogate: first run %v ms, optimum %v", res.Trace[0], opt)
	}

	var all []smart.Setting
	for s := range p.Variants[0].Space.All() {
		if _, ok := testTime(s); ok {
			all = append(all, s)
		}
	}
	slices.SortStableFunc(all, func(a, b smart.Setting) int {
		ta, _ := testTime(a)
		tb, _ := testTime(b)
		return cmp.Compare(tb, ta) // the inverse's order: slowest first
	})
	ranked := make([]Candidate, len(all))
	for i, s := range all {
		ranked[i] = Candidate{Setting: s}
	}
	spread := spreadOut(p.Variants, ranked, 2, 6, 0.5)
	if slices.EqualFunc(spread, ranked[:6], func(a, b Candidate) bool { return maps.Equal(a.Setting, b.Setting) }) {
		t.Fatal("spread out, the hedge is the surrogate's six fastest: the test checks nothing")
	}
	for _, tc := range []struct {
		spread float64
		hedge  []Candidate
	}{{-1, ranked[:6]}, {0, spread}} {
		m := &Pipeline{Surrogate: inverse{}, Hedge: 6, HedgeFirst: 2, HedgeEvery: 5, Batch: 2, HedgeSpread: tc.spread}
		p, _ = testProblem(t) // its evaluator counts the queries of one search
		res, err = Search(ctx, p, Budget{Evaluations: 80}, m, 1)
		if err != nil {
			t.Fatal(err)
		}
		var at []int // where the hedge's six ran
		for _, c := range tc.hedge {
			i := slices.IndexFunc(res.History, func(o Outcome) bool { return maps.Equal(o.Setting, c.Setting) })
			if i < 0 {
				t.Fatalf("spread %v: the hedge's setting %v never ran", tc.spread, c.Setting)
			}
			at = append(at, i)
		}
		if at[0] != 0 || at[1] != 1 {
			t.Errorf("spread %v: the hedge's first two ran at %v, want the first batch's head", tc.spread, at[:2])
		}
		for k := 3; k < len(at); k++ {
			if gap := at[k] - at[k-1]; gap < 1+5 || gap > 1+5+2 {
				t.Errorf("spread %v: hedge runs at %v: gap %d before the one ranked %d, want 6 to 8", tc.spread, at, gap, k+1)
			}
		}
		if at[2] < 2+10 {
			t.Errorf("spread %v: the hedge's third ran at %d, within the first batch of 2+10", tc.spread, at[2])
		}
	}
}

// TestSpreadOut checks spreadOut against its definition on random orders of a space's
// settings: the first ones kept as they come, the others in order, each far enough from every
// one kept before it, and every one passed over too close to one kept before it.
func TestSpreadOut(t *testing.T) {
	sp := testSpace(t)
	vs := []Variant{{Space: sp}}
	var all []Candidate
	for s := range sp.All() {
		all = append(all, Candidate{Setting: s})
	}
	dist := func(a, b Candidate) float64 { // the sum of the values' distances, ranges as 1
		d := 0.0
		for _, p := range sp.Params() {
			i, j := slices.Index(p.Values, a.Setting[p.Name]), slices.Index(p.Values, b.Setting[p.Name])
			d += math.Abs(float64(i-j)) / float64(len(p.Values)-1)
		}
		return d
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		ranked := slices.Clone(all)
		rng.Shuffle(len(ranked), func(i, j int) { ranked[i], ranked[j] = ranked[j], ranked[i] })
		first, n, least := rng.IntN(4), 1+rng.IntN(12), []float64{0, 0.3, 0.5, 1, 2.5, 4}[rng.IntN(6)]
		kept := spreadOut(vs, ranked, first, n, least)
		if len(kept) > n || len(kept) < min(first, n) {
			t.Fatalf("trial %d: kept %d of n=%d, first=%d", trial, len(kept), n, first)
		}
		k := 0 // the next of kept in ranked
		for i, c := range ranked {
			if k == len(kept) {
				if len(kept) < n && i < len(ranked) {
					// Fewer than n: every later setting must be too close.
					for _, c := range ranked[i:] {
						if !slices.ContainsFunc(kept, func(b Candidate) bool { return dist(c, b) < least }) {
							t.Fatalf("trial %d: kept %d < %d, but %v is far from all", trial, len(kept), n, c.Setting)
						}
					}
				}
				break
			}
			if maps.Equal(c.Setting, kept[k].Setting) {
				if k >= first {
					for _, b := range kept[:k] {
						if d := dist(c, b); d < least {
							t.Fatalf("trial %d: kept %v at %v from %v, least %v", trial, c.Setting, d, b.Setting, least)
						}
					}
				}
				k++
				continue
			}
			if i < first {
				t.Fatalf("trial %d: the %d-th setting was passed over, first=%d", trial, i, first)
			}
			if !slices.ContainsFunc(kept[:k], func(b Candidate) bool { return dist(c, b) < least }) {
				t.Fatalf("trial %d: %v passed over, far from the %d kept before it", trial, c.Setting, k)
			}
		}
		if k != len(kept) {
			t.Fatalf("trial %d: kept settings not in ranked's order", trial)
		}
	}
}

// TestThompsonPoolHidden checks that the evaluations a pool hides are neither learnt from nor
// bred from, while the run still counts them.
func TestThompsonPoolHidden(t *testing.T) {
	p, _ := testProblem(t)
	p.Evaluator = truth{}
	r := newRun(&p, Budget{}, 1)
	if err := randomFrom(context.Background(), r, 1, 12); err != nil {
		t.Fatal(err)
	}
	s := newThompsonPool(r, 1, 1<<15, 8192, defaultEnsemble, 1, rand.New(rand.NewPCG(1, 2)))
	top, _ := r.Best()
	s.hidden = map[string]bool{string(r.variantKey(top.Candidate)): true}
	if got := len(s.learnt()); got != r.Evaluations()-1 {
		t.Errorf("learnt %d of %d evaluations, one hidden", got, r.Evaluations())
	}
	best, ok := s.best()
	if !ok || maps.Equal(best.Setting, top.Setting) || best.Value < top.Value {
		t.Errorf("pool's best %v (%v ms), the hidden best %v (%v ms)", best.Setting, best.Value, top.Setting, top.Value)
	}
	for _, o := range s.learnt() {
		if o.OK() && o.Value < best.Value {
			t.Errorf("%v runs faster (%v ms) than the pool's best", o.Setting, o.Value)
		}
	}
	if rb, _ := r.Best(); !maps.Equal(rb.Setting, top.Setting) {
		t.Errorf("the run's best moved to %v", rb.Setting)
	}
}
