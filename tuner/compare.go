package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"smart"
)

// Case is a problem whose optimum is known, for comparing strategies.
type Case struct {
	Name    string
	Problem Problem
	Optimum float64 // the fastest objective of the whole space
	Size    int     // settings of the space
	// Prior is what a strategy may know before its first run, e.g. a Transfer from the same
	// kernel's measurements on other GPUs; nil when there is nothing.
	Prior smart.Evaluator
}

// Optimum evaluates every setting of p (with the evaluator of p, which should be cheap: a
// replay or a model) and returns the fastest objective and the number of settings.
func Optimum(ctx context.Context, p Problem) (float64, int, error) {
	res, err := Search(ctx, p, Budget{}, Exhaustive{}, 0)
	if err != nil {
		return 0, 0, err
	}
	if res.Best.Setting == nil {
		return 0, res.Evaluations, errors.New("no setting of the space runs")
	}
	return res.Best.Value, res.Evaluations, nil
}

// Contender is a strategy in a comparison: a name and a constructor, called once per search
// (methods keep no state between searches, but a fresh one per search makes that obvious).
type Contender struct {
	Name  string
	New   func() Method
	Seeds int // searches, with seeds FirstSeed to FirstSeed+Seeds-1
	// FirstSeed shifts the seeds, so that seeds used while choosing a strategy's settings can be
	// held out of the comparison that reports it.
	FirstSeed uint64
	// ForBudget, when set, builds the method for a given evaluation budget in Standards (IterML
	// sized to spend it in a few iterations); New is used otherwise.
	ForBudget func(budget int) Method
	// ForCase, when set, builds the method for a case in Compare (a strategy given the case's
	// Prior); a nil method leaves the case out for this contender. New is used otherwise.
	ForCase func(c Case) Method
}

func (c Contender) forCase(cs Case) Method {
	if c.ForCase != nil {
		return c.ForCase(cs)
	}
	return c.New()
}

// Searches is the number of searches Compare runs: every contender's seeds on each case it
// takes.
func Searches(cases []Case, cs []Contender) int {
	n := 0
	for _, m := range cs {
		for _, c := range cases {
			if m.forCase(c) != nil {
				n += m.Seeds
			}
		}
	}
	return n
}

func (c Contender) method(budget int) Method {
	if c.ForBudget != nil {
		return c.ForBudget(budget)
	}
	return c.New()
}

// Reach is how many evaluations the searches of one strategy on one case needed to reach a
// share of the optimum: best <= optimum/share.
type Reach struct {
	Case, Method string
	Budget       int
	Evaluations  []int  // per seed, in seed order; 0 when the budget ran out first
	FirstSeed    uint64 // the seed of Evaluations[0]
	// Finished says, per seed, whether its search ran to its end: all do unless Compare was
	// interrupted.
	Finished []bool `json:"-"`
}

// Complete reports whether every seed's search finished.
func (r Reach) Complete() bool { return !slices.Contains(r.Finished, false) }

// Reached is the number of searches that reached the goal within the budget.
func (r Reach) Reached() int {
	n := 0
	for _, e := range r.Evaluations {
		if e > 0 {
			n++
		}
	}
	return n
}

// Quantile is the q-quantile of the evaluations needed (nearest rank), counting a search that
// did not get there as needing infinitely many: +Inf when more than a share 1-q failed.
func (r Reach) Quantile(q float64) float64 {
	v := make([]float64, len(r.Evaluations))
	for i, e := range r.Evaluations {
		v[i] = float64(e)
		if e == 0 {
			v[i] = math.Inf(1)
		}
	}
	return quantile(v, q)
}

// Compare runs every contender on every case with an evaluation budget and the target
// optimum/share, and reports how many evaluations each search needed. Searches run on
// parallel goroutines (0: one per CPU); each is deterministic, so the result does not depend
// on scheduling. done, if not nil, is called after each search, one call at a time. With an
// error (a cancelled context) the rows come back too: their finished searches are final
// (Reach.Complete).
func Compare(ctx context.Context, cases []Case, cs []Contender, budget int, share float64, parallel int, done func()) ([]Reach, error) {
	done = oneAtATime(done)
	type job struct{ c, m, seed, out int }
	var jobs []job
	out := make([]Reach, 0, len(cases)*len(cs))
	for ci, c := range cases {
		for mi, m := range cs {
			if m.forCase(c) == nil {
				continue
			}
			out = append(out, Reach{Case: c.Name, Method: m.Name, Budget: budget, Evaluations: make([]int, m.Seeds), FirstSeed: m.FirstSeed,
				Finished: make([]bool, m.Seeds)})
			for s := range m.Seeds {
				jobs = append(jobs, job{ci, mi, s, len(out) - 1})
			}
		}
	}
	err := parallelDo(ctx, len(jobs), parallel, func(ctx context.Context, j int) error {
		jb := jobs[j]
		c := cases[jb.c]
		seed := cs[jb.m].FirstSeed + uint64(jb.seed)
		res, err := Search(ctx, c.Problem, Budget{Evaluations: budget, Target: c.Optimum / share}, cs[jb.m].forCase(c), seed)
		if err != nil {
			return fmt.Errorf("%s on %s, seed %d: %w", cs[jb.m].Name, c.Name, seed, err)
		}
		if res.Stop == StopTarget {
			out[jb.out].Evaluations[jb.seed] = res.Evaluations
		}
		out[jb.out].Finished[jb.seed] = true
		if done != nil {
			done()
		}
		return nil
	})
	return out, err
}

// Standard is the quality of the best setting found with a fixed share of the space sampled,
// over seeds: IterML's two standards ask whether the median (Standard 1) and the 5th
// percentile (Standard 2) of optimum/best exceed 0.95.
type Standard struct {
	Case, Method string
	Ratio        float64 // share of the space sampled: the evaluation budget over the space's size
	Budget       int
	Median, P5   float64 // of optimum/best over the seeds (0 when a search found nothing)
}

// Standards runs each contender with budgets of each ratio of the case's size and reports the
// quality reached. done, if not nil, is called after each search, one call at a time.
func Standards(ctx context.Context, c Case, cs []Contender, ratios []float64, parallel int, done func()) ([]Standard, error) {
	done = oneAtATime(done)
	type job struct{ m, r, seed int }
	var jobs []job
	quality := make([][][]float64, len(cs))
	for mi, m := range cs {
		quality[mi] = make([][]float64, len(ratios))
		for ri := range ratios {
			quality[mi][ri] = make([]float64, m.Seeds)
			for s := range m.Seeds {
				jobs = append(jobs, job{mi, ri, s})
			}
		}
	}
	budget := func(ratio float64) int { return max(1, int(math.Round(ratio*float64(c.Size)))) }
	err := parallelDo(ctx, len(jobs), parallel, func(ctx context.Context, j int) error {
		jb := jobs[j]
		b := budget(ratios[jb.r])
		seed := cs[jb.m].FirstSeed + uint64(jb.seed)
		res, err := Search(ctx, c.Problem, Budget{Evaluations: b}, cs[jb.m].method(b), seed)
		if err != nil {
			return fmt.Errorf("%s on %s, seed %d: %w", cs[jb.m].Name, c.Name, seed, err)
		}
		if res.Best.Setting != nil {
			quality[jb.m][jb.r][jb.seed] = c.Optimum / res.Best.Value
		}
		if done != nil {
			done()
		}
		return nil
	})
	var out []Standard
	for mi, m := range cs {
		for ri, ratio := range ratios {
			q := quality[mi][ri]
			out = append(out, Standard{Case: c.Name, Method: m.Name, Ratio: ratio, Budget: budget(ratio),
				Median: quantile(q, 0.5), P5: quantile(q, 0.05)})
		}
	}
	return out, err
}

// parallelDo calls f for 0..n-1 on up to parallel goroutines (0: one per CPU) and returns the
// first error, after which no new call starts.
// oneAtATime makes f safe to call from the parallel searches: a progress callback needs no lock.
func oneAtATime(f func()) func() {
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	return func() {
		mu.Lock()
		defer mu.Unlock()
		f()
	}
}

func parallelDo(ctx context.Context, n, parallel int, f func(context.Context, int) error) error {
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range min(parallel, n) {
		wg.Go(func() {
			for j := range next {
				if err := f(ctx, j); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
feed:
	for j := range n {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
