package tuner

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"
	"time"

	"smart"
	"smart/space"
)

// hugeSpace has 10^8 settings: eight parameters of ten values, five of them powers of two.
func hugeSpace(b testing.TB) *space.Space {
	var params []space.Param
	for i := range 8 {
		p := space.Param{Name: string(rune('a' + i)), Values: space.PowersOfTwo(1, 512)}
		if i >= 5 {
			p.Values = space.Range(1, 10, 1)
		}
		params = append(params, p)
	}
	sp, err := space.New(context.Background(), params)
	if err != nil {
		b.Fatal(err)
	}
	if n, _ := sp.Len(); n != 100_000_000 {
		b.Fatalf("space of %d settings", n)
	}
	return sp
}

// freeEval answers instantly: a smooth bowl, so the benchmark times the strategy alone.
type freeEval struct{}

func (freeEval) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	t := 1.0
	for k, v := range q.Setting {
		x := math.Log2(float64(v)) - float64(len(k)+2)
		t += x * x
	}
	return smart.Measurement{Setting: q.Setting, Status: smart.StatusOK, TimeMs: t, Source: smart.Simulated}, nil
}

// BenchmarkOverhead measures each strategy's own time per evaluation on a space of 10^8
// settings with 500 evaluations of an instant evaluator: ms/eval is the wall time outside the
// evaluator, cpu-ms/eval the process's CPU time (all goroutines, the garbage collector
// included), which a loaded machine does not inflate.
func BenchmarkOverhead(b *testing.B) {
	sp := hugeSpace(b)
	p := Problem{Variants: []Variant{{Space: sp}}, Evaluator: freeEval{}}
	// The pipeline with a prior (the evaluator itself) finds the optimum early and then stalls:
	// every generation after that takes the pair model's pick, its costliest course; nopair is
	// the same without the pair model.
	withPrior := &Pipeline{Surrogate: freeEval{}}
	noPair := &Pipeline{Surrogate: freeEval{}, LinearStall: -1}
	for _, m := range []Method{&Random{}, &IterML{}, &IterML{Model: Trees}, &CSTuner{}, &Pipeline{}, &Pipeline{Screen: 2048}, withPrior, noPair, &Bayes{}} {
		name := m.Name()
		switch m := m.(type) {
		case *IterML:
			name += "-" + string(modelOrDefault(m.Model))
		case *Pipeline:
			name += "-screen" + strconv.Itoa(m.withDefaults().Screen)
			if m.Surrogate != nil {
				name += "-prior"
			}
			if m.LinearStall < 0 {
				name += "-nopair"
			}
		}
		b.Run(name, func(b *testing.B) {
			var overhead float64
			evals := 0
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				res, err := Search(context.Background(), p, Budget{Evaluations: 500}, m, uint64(i))
				if err != nil {
					b.Fatal(err)
				}
				overhead += (res.Elapsed - res.EvalTime).Seconds()
				evals += res.Evaluations
			}
			b.ReportMetric(1000*overhead/float64(evals), "ms/eval")
			b.ReportMetric(1000*(cpuTime()-cpu0).Seconds()/float64(evals), "cpu-ms/eval")
		})
	}
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func modelOrDefault(m Model) Model {
	if m == "" {
		return Forest
	}
	return m
}

// BenchmarkEnsemblePredict times the ensemble's prediction of a pool of 2^15 rows by 32 trees
// fitted on 600 runs (predict: the rows partitioned down each tree as a batch), against the
// walks of four rows in step (walks) and one branching walk per row and tree (walk, the tests'
// reference) in the same process: the ratios are what the batch, and before it the walks in
// step and the conditional moves, buy.
func BenchmarkEnsemblePredict(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	draw := func(n int) [][]float64 {
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = make([]float64, 9)
			for f := range rows[i] {
				rows[i][f] = float64(rng.IntN(10))
			}
		}
		return rows
	}
	X, pool := draw(600), draw(1<<15)
	y := make([]float64, len(X))
	for i, x := range X {
		y[i] = x[0]*x[1] - x[2] + rng.Float64()
	}
	e := fitEnsemble(X, y, defaultEnsemble, rng)
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			for _, row := range pool {
				for k := range e.trees {
					walk(&e.trees[k], row)
				}
			}
		}
	})
	b.Run("walks", func(b *testing.B) {
		s, ss := make([]float64, len(pool)), make([]float64, len(pool))
		for b.Loop() {
			e.sumWalks(pool, s, ss)
		}
	})
	b.Run("predict", func(b *testing.B) {
		for b.Loop() {
			e.predict(pool)
		}
	})
}
