package dataset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"smart"
	"smart/internal/testctx"
)

var testOCs = []smart.Combination{0, smart.Combination(smart.ST), smart.Combination(smart.ST | smart.BM), smart.Combination(smart.CM | smart.TB)}

func itemKeys(items []Item) []string {
	var keys []string
	for _, it := range items {
		keys = append(keys, it.Stencil.ID()+"|"+it.OC.String()+"|"+it.Setting.String())
	}
	return keys
}

func TestShardsPartitionThePlan(t *testing.T) {
	ctx := context.Background()
	sts := append(testStencils(t, 7, 2), testStencils(t, 6, 3)...)
	plan, err := NewPlan(sts, testOCs, 5, 42)
	if err != nil {
		t.Fatal(err)
	}
	all, err := plan.Items(ctx, sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := itemKeys(all)
	if len(whole) != 13*4*5 {
		t.Fatalf("%d items; want 13 stencils x 4 OCs x 5 settings", len(whole))
	}
	if len(slices.Compact(slices.Sorted(slices.Values(whole)))) != len(whole) {
		t.Fatal("the plan draws a variant twice")
	}
	reversed := slices.Clone(sts) // the order stencils are given in does not matter
	slices.Reverse(reversed)
	for _, n := range []int{1, 2, 3, 5, 13, 20} {
		var union []string
		owner := map[string]int{}
		for i := 1; i <= n; i++ {
			part, err := plan.Items(ctx, reversed, smart.SM80(), testSpace, &Shard{I: i, N: n})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range itemKeys(part) {
				if j, dup := owner[k]; dup {
					t.Fatalf("n=%d: %s is in shards %d and %d", n, k, j, i)
				}
				owner[k] = i
			}
			union = append(union, itemKeys(part)...)
			stencils := map[string]bool{}
			for _, it := range part {
				stencils[it.Stencil.ID()] = true
			}
			if want := 13/n + btoi(i <= 13%n); len(stencils) != want {
				t.Errorf("n=%d: shard %d has %d stencils, want %d", n, i, len(stencils), want)
			}
		}
		slices.Sort(union)
		if !slices.Equal(union, slices.Sorted(slices.Values(whole))) {
			t.Fatalf("n=%d: the shards' union is not the plan", n)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestPlanDrawsAreStable(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 6, 3)
	p1, _ := NewPlan(sts, testOCs, 4, 7)
	p2, _ := NewPlan(sts[:3], testOCs[1:], 4, 7) // fewer stencils and OCs: the shared ones draw the same
	p3, _ := NewPlan(sts, testOCs, 4, 8)
	a, err := p1.Items(ctx, sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p2.Items(ctx, sts[:3], smart.SM80(), testSpace, nil)
	c, _ := p3.Items(ctx, sts, smart.SM80(), testSpace, nil)
	again, _ := p1.Items(ctx, sts, smart.SM80(), testSpace, nil)
	if !reflect.DeepEqual(itemKeys(a), itemKeys(again)) {
		t.Fatal("the same plan drew different settings")
	}
	ka := map[string]bool{}
	for _, k := range itemKeys(a) {
		ka[k] = true
	}
	for _, k := range itemKeys(b) {
		if !ka[k] {
			t.Fatalf("a smaller plan drew %s, which the larger did not", k)
		}
	}
	if reflect.DeepEqual(itemKeys(a), itemKeys(c)) {
		t.Fatal("another seed drew the same settings")
	}
	for _, it := range a {
		sp, _ := testSpace(ctx, it.Stencil, it.OC, smart.SM80())
		if err := sp.Check(it.Setting); err != nil {
			t.Fatalf("drawn setting %s is invalid: %v", it.Setting, err)
		}
	}
	if _, err := p1.Items(ctx, sts[:5], smart.SM80(), testSpace, nil); err == nil {
		t.Fatal("items for other stencils than the plan's")
	}
}

func TestPlanSmallAndEmptySpaces(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 2, 2)
	tb := smart.Combination(smart.TB)
	p, _ := NewPlan(sts, []smart.Combination{0, tb}, 1000, 1)
	items, err := p.Items(ctx, sts, smart.SM80(), emptyTB, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, _ := testSpace(ctx, sts[0], 0, smart.SM80())
	n, _ := sp.Len()
	var base, invalid int
	for _, it := range items {
		switch {
		case it.OC == 0 && it.Invalid == "":
			base++
		case it.OC == tb && it.Invalid != "" && len(it.Setting) == 0:
			invalid++
		default:
			t.Fatalf("unexpected item %+v", it)
		}
	}
	if base != 2*int(n) || invalid != 2 {
		t.Fatalf("%d BASE items (want all %d settings of 2 stencils), %d invalid TB items (want 2)", base, 2*n, invalid)
	}

	explicit, _ := NewExplicitPlan(sts, []Variant{
		{OC: 0, Setting: smart.Setting{"bx": 32, "by": 4, "shared": 1, "const": 0}},
		{OC: 0, Setting: smart.Setting{"bx": 128, "by": 8, "shared": 1, "const": 0}}, // 1024 threads
	})
	if _, err := NewExplicitPlan(sts, []Variant{explicit.Settings[0], explicit.Settings[0]}); err == nil {
		t.Error("a plan with a repeated variant")
	}
	items, err = explicit.Items(ctx, sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 || items[0].Invalid != "" || items[1].Invalid == "" {
		t.Fatalf("explicit items %+v", items)
	}
}

func TestParseShard(t *testing.T) {
	for in, want := range map[string]*Shard{"": nil, "1/1": {1, 1}, "3/4": {3, 4}} {
		if got, err := ParseShard(in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseShard(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"0/4", "5/4", "1/0", "2", "a/b", "-1/2"} {
		if _, err := ParseShard(in); err == nil {
			t.Errorf("ParseShard(%q) accepted", in)
		}
	}
}

type fixedObserver struct{ calls int }

func (o *fixedObserver) Read() (smart.Readings, error) {
	o.calls++
	if o.calls == 2 {
		return smart.Readings{}, errors.New("NVML: not supported")
	}
	return smart.Readings{SMClockMHz: 1400 + o.calls, MemClockMHz: 1215, PowerW: 200, TempC: 50}, nil
}

// TestRunnerResumes stops a run with a lost device, resumes it with a fresh evaluator, and
// checks that every variant is measured exactly once, failures included.
func TestRunnerResumes(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 4, 3)
	plan, _ := NewPlan(sts, testOCs, 6, 3)
	items, err := plan.Items(ctx, sts, smart.SM80(), testSpace, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	meta := simMeta(StencilParams(), plan, nil)
	w, _, err := OpenWriter(dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if err := w.AddStencil(st); err != nil {
			t.Fatal(err)
		}
	}
	first := &fakeEval{failAfter: 37}
	var last [2]int
	r := &Runner{Evaluator: first, GPU: "A100-40GB", Progress: func(d, n int) { last = [2]int{d, n} }}
	sum, err := r.Run(ctx, w, items)
	if !errors.Is(err, errDeviceLost) || sum.Written != 37 || last != [2]int{37, len(items)} {
		t.Fatalf("first run: %+v, %v, progress %v", sum, err, last)
	}
	w.Close()

	w, torn, err := OpenWriter(dir, meta)
	if err != nil || torn != nil {
		t.Fatal(err, torn)
	}
	second := &batchEval{}
	obs := &fixedObserver{}
	r = &Runner{Evaluator: second, GPU: "A100-40GB", Batch: 10, Observer: obs, Progress: func(d, n int) { last = [2]int{d, n} }}
	sum, err = r.Run(ctx, w, items)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if sum.Skipped != 37 || sum.Written != len(items)-37 || second.calls != len(items)-37 || last != [2]int{len(items), len(items)} {
		t.Fatalf("second run: %+v, %d calls, progress %v", sum, second.calls, last)
	}
	for i, b := range second.batches {
		if b > 10 || (b != 10 && i != len(second.batches)-1) {
			t.Fatalf("batch sizes %v; want 10s and a smaller last one", second.batches)
		}
	}
	if sum.ReadingErrors != 1 {
		t.Errorf("%d reading errors; want 1", sum.ReadingErrors)
	}

	_, rows, err := ReadAll(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(items) {
		t.Fatalf("%d rows for %d items", len(rows), len(items))
	}
	want := itemKeys(items)
	for i, m := range rows {
		if got := m.StencilID + "|" + m.OC.String() + "|" + m.Setting.String(); got != want[i] {
			t.Fatalf("row %d is %s; want %s", i, got, want[i])
		}
		failing := m.Setting["bx"] == 128 && m.Setting["shared"] == 1
		if failing != (m.Status == smart.StatusLaunchError) || m.GPU != "A100-40GB" || m.Source != smart.Simulated {
			t.Fatalf("row %d: %+v", i, m)
		}
		// The first run had no observer; the second's observer failed for its second batch.
		if wantReadings := i >= 37 && !(i >= 47 && i < 57); wantReadings != (m.Readings != nil) {
			t.Fatalf("row %d: readings %v", i, m.Readings)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, StencilsDir))
	if len(entries) != len(sts) {
		t.Fatalf("%d stencil files for %d stencils", len(entries), len(sts))
	}
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, StencilsDir, e.Name()))
		st, err := smart.ParseStencil(data, smart.Limits{})
		if err != nil || st.ID()+".json" != e.Name() {
			t.Fatalf("stencil file %s: %v", e.Name(), err)
		}
	}

	// A run with another plan may not go into the same directory.
	other := meta
	other.Plan = &Plan{Seed: 4, Samples: 6, OCs: testOCs, Stencils: plan.Stencils}
	if _, _, err := OpenWriter(dir, other); err == nil || !strings.Contains(err.Error(), "its seed: 3, now 4") {
		t.Fatalf("OpenWriter with another seed: %v", err)
	}
}

// badEval answers without saying where its numbers come from.
type badEval struct{ m smart.Measurement }

func (b badEval) Evaluate(context.Context, smart.Query) (smart.Measurement, error) { return b.m, nil }

func TestRunnerRejectsDishonestAnswers(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 1, 2)
	plan, _ := NewPlan(sts, testOCs[:1], 2, 1)
	items, _ := plan.Items(ctx, sts, smart.SM80(), testSpace, nil)
	for _, tc := range []struct {
		m    smart.Measurement
		want string
	}{
		{smart.Measurement{Status: smart.StatusOK, TimeMs: 1}, "did not say whether its time is measured"},
		{smart.Measurement{Source: smart.Simulated, TimeMs: 1}, "gave no status"},
		{smart.Measurement{Source: smart.Simulated, Status: smart.StatusOK}, "status ok with time 0 ms"},
	} {
		w, err := Create(t.TempDir(), simMeta(StencilParams(), plan, nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = (&Runner{Evaluator: badEval{tc.m}, GPU: "A100-40GB"}).Run(ctx, w, items)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.m, err, tc.want)
		}
		w.Close()
	}
}

func TestRunnerStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs, 3, 1)
	items, _ := plan.Items(ctx, sts, smart.SM80(), testSpace, nil)
	w, err := Create(t.TempDir(), simMeta(StencilParams(), plan, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := &Runner{Evaluator: &fakeEval{}, GPU: "A100-40GB", Progress: func(d, n int) {
		if d == 5 {
			cancel()
		}
	}}
	sum, err := r.Run(ctx, w, items)
	if !errors.Is(err, context.Canceled) || sum.Written != 5 || w.Len() != 5 {
		t.Fatalf("%+v, %v, %d rows", sum, err, w.Len())
	}
}

// slowBatchEval answers the first finish queries of every batch at once and the rest only when
// the test's context ends (testctx), as a GPU does with a slow variant; a context ending before
// that cuts the batch off, and it returns the finished rows with the context's error. onWait,
// when set, is called as the wait begins.
type slowBatchEval struct {
	batchEval
	finish int
	test   context.Context
	onWait func()
	waited bool // the test's context ended first: the evaluation's never did
}

func (s *slowBatchEval) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	out, err := s.batchEval.EvaluateBatch(ctx, qs)
	if err != nil || len(qs) <= s.finish {
		return out, err
	}
	if s.onWait != nil {
		s.onWait()
	}
	select {
	case <-ctx.Done():
		clear(out[s.finish:])
		return out, ctx.Err()
	case <-s.test.Done():
		s.waited = true
		return out, nil
	}
}

// TestRunnerCutsBatches: a batch in flight is cut off by StopAfter, or by a cancel, and its
// finished rows are written; the run resumed after it writes every item exactly once. StopAfter
// is 20 times a whole run with an evaluator that never waits (at least 100 ms), measured as
// loaded as the machine is now, so it cannot end the run before the first batch's rows.
func TestRunnerCutsBatches(t *testing.T) {
	sts := testStencils(t, 2, 2)
	plan, _ := NewPlan(sts, testOCs, 3, 1)
	items, _ := plan.Items(context.Background(), sts, smart.SM80(), testSpace, nil)
	w, err := Create(t.TempDir(), simMeta(StencilParams(), plan, nil))
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := (&Runner{Evaluator: &batchEval{}, GPU: "A100-40GB", Batch: 5}).Run(context.Background(), w, items); err != nil {
		t.Fatal(err)
	}
	stopAfter := max(100*time.Millisecond, 20*time.Since(began))
	w.Close()
	for _, cancelled := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		dir := t.TempDir()
		meta := simMeta(StencilParams(), plan, nil)
		w, err := Create(dir, meta)
		if err != nil {
			t.Fatal(err)
		}
		slow := &slowBatchEval{finish: 3, test: testctx.Context(t)}
		r := &Runner{Evaluator: slow, GPU: "A100-40GB", Batch: 5, StopAfter: stopAfter}
		if cancelled {
			slow.onWait, r.StopAfter = cancel, time.Hour
		}
		sum, err := r.Run(ctx, w, items)
		cancel()
		if cancelled && !errors.Is(err, context.Canceled) || !cancelled && err != nil {
			t.Fatalf("cancelled %v: error %v", cancelled, err)
		}
		if slow.waited || sum.Stopped == cancelled || sum.Written != 3 || len(slow.batches) != 1 || w.Len() != 3 {
			t.Fatalf("cancelled %v: %+v, batches %v, %d rows, waited %v", cancelled, sum, slow.batches, w.Len(), slow.waited)
		}
		w.Close()

		w, torn, err := OpenWriter(dir, meta)
		if err != nil || torn != nil {
			t.Fatal(err, torn)
		}
		sum, err = (&Runner{Evaluator: &batchEval{}, GPU: "A100-40GB", StopAfter: time.Hour}).Run(context.Background(), w, items)
		w.Close()
		if err != nil || sum.Stopped || sum.Skipped != 3 || sum.Written != len(items)-3 {
			t.Fatalf("resumed: %+v, %v", sum, err)
		}
		_, rows, err := ReadAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := itemKeys(items)
		if len(rows) != len(want) {
			t.Fatalf("%d rows for %d items", len(rows), len(want))
		}
		for i, m := range rows {
			if got := m.StencilID + "|" + m.OC.String() + "|" + m.Setting.String(); got != want[i] || m.Status == "" {
				t.Fatalf("row %d is %s (status %q); want %s", i, got, m.Status, want[i])
			}
		}
	}
}

func ExampleParseShard() {
	s, err := ParseShard("2/4")
	fmt.Println(s, err)
	_, err = ParseShard("0/4")
	fmt.Println(err)
	// Output:
	// 2/4 <nil>
	// shard "0/4" is not of the form i/n with 1 <= i <= n (e.g. 2/4)
}

// prefetchEval records the batches it is asked to prefetch and to evaluate.
type prefetchEval struct {
	batchEval
	prefetched, evaluated [][]string
	ahead                 []int // of each prefetched batch, how many batches before it were still to evaluate
}

func (p *prefetchEval) Prefetch(qs []smart.Query) {
	p.prefetched = append(p.prefetched, queryKeys(qs))
	p.ahead = append(p.ahead, len(p.prefetched)-1-len(p.evaluated))
}

// Ahead asks for two batches of 7 and a bit: three batches ahead when Lookahead is 0.
func (p *prefetchEval) Ahead() int { return 15 }

func (p *prefetchEval) EvaluateBatch(ctx context.Context, qs []smart.Query) ([]smart.Measurement, error) {
	p.evaluated = append(p.evaluated, queryKeys(qs))
	return p.batchEval.EvaluateBatch(ctx, qs)
}

func queryKeys(qs []smart.Query) []string {
	var keys []string
	for _, q := range qs {
		keys = append(keys, q.Stencil.Name+" "+q.OC.String()+" "+q.Setting.String())
	}
	return keys
}

// TestRunnerPrefetches: a Prefetcher is handed every batch it will evaluate exactly once, in
// order (invalid items left out), the first before anything else and each other Lookahead
// batches ahead, so that work started ahead is never wasted and a compiler queue serves the GPU
// in the order it needs.
func TestRunnerPrefetches(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 3, 3)
	plan, _ := NewPlan(sts, testOCs, 4, 3)
	items, err := plan.Items(ctx, sts, smart.SM80(), emptyTB, nil)
	if err != nil {
		t.Fatal(err)
	}
	invalid := 0
	for _, it := range items {
		if it.Invalid != "" {
			invalid++
		}
	}
	if invalid == 0 {
		t.Fatal("the plan has no invalid item to leave out")
	}
	for _, lookahead := range []int{1, 3, 0} {
		w, _, err := OpenWriter(t.TempDir(), simMeta(StencilParams(), plan, nil))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		p := &prefetchEval{}
		if _, err := (&Runner{Evaluator: p, GPU: "A100-40GB", Batch: 7, Lookahead: lookahead}).Run(ctx, w, items); err != nil {
			t.Fatal(err)
		}
		if lookahead == 0 {
			lookahead = 3 // ceil(Ahead / Batch)
		}
		if len(p.evaluated) < lookahead+3 || !reflect.DeepEqual(p.prefetched, p.evaluated) {
			t.Fatalf("lookahead %d: prefetched %d batches %v\nevaluated %d %v", lookahead, len(p.prefetched), p.prefetched, len(p.evaluated), p.evaluated)
		}
		// Batch j is handed over when batch j-lookahead is about to be evaluated, the first
		// lookahead+1 before anything is.
		for j, a := range p.ahead {
			if want := min(j, lookahead); a != want {
				t.Errorf("lookahead %d: batch %d prefetched with %d batches before it still to evaluate; want %d", lookahead, j, a, want)
			}
		}
	}
}

// TestLoadItemsRefusesCutFiles: the items a run saved load back as they were, for a sampled
// plan's shard and for explicit settings (OCs without a valid setting included); an items.csv
// cut at any line boundary short of a stencil's last OC, or given lines of a stencil outside the
// shard, is refused, where it would have had a resumed run call the missing variants done.
func TestLoadItemsRefusesCutFiles(t *testing.T) {
	ctx := context.Background()
	sts := testStencils(t, 4, 3)
	sampled, _ := NewPlan(sts, testOCs, 3, 1)
	explicit, _ := NewExplicitPlan(sts, []Variant{{OC: 0, Setting: smart.Setting{"bx": 32, "by": 1, "bz": 1, "shared": 0, "const": 0}},
		{OC: 0, Setting: smart.Setting{"bx": 7}}})
	shard := &Shard{I: 2, N: 2}
	for _, c := range []struct {
		name  string
		plan  *Plan
		shard *Shard
	}{{"sampled shard", sampled, shard}, {"explicit", explicit, nil}} {
		items, err := c.plan.Items(ctx, sts, smart.SM80(), emptyTB, c.shard)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := SaveItems(dir, items); err != nil {
			t.Fatal(err)
		}
		if got, err := LoadItems(dir, sts, c.plan, c.shard); err != nil || len(got) != len(items) {
			t.Fatalf("%s: loaded %d of %d items, %v", c.name, len(got), len(items), err)
		}
		path := filepath.Join(dir, ItemsFile)
		whole, _ := os.ReadFile(path)
		lines := strings.SplitAfter(string(whole), "\n")
		// Cut after the header and each item but the last stencil's last OC, whose missing
		// settings look like a space with fewer valid ones.
		last := len(lines) - 1
		if c.plan.Samples > 0 {
			last -= c.plan.Samples
		}
		for keep := 2; keep < last; keep++ {
			os.WriteFile(path, []byte(strings.Join(lines[:keep], "")), 0o644)
			if _, err := LoadItems(dir, sts, c.plan, c.shard); err == nil || !strings.Contains(err.Error(), "items.csv does not hold the plan's settings") {
				t.Errorf("%s cut to %d lines: %v", c.name, keep, err)
			}
		}
		if c.shard != nil {
			other, _ := c.plan.Items(ctx, sts, smart.SM80(), emptyTB, &Shard{I: 1, N: 2})
			SaveItems(dir, append(items, other[0]))
			if _, err := LoadItems(dir, sts, c.plan, c.shard); err == nil || !strings.Contains(err.Error(), "is not among the stencils of this run") {
				t.Errorf("%s with another shard's item: %v", c.name, err)
			}
		}
	}
}
