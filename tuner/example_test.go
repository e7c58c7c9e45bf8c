package tuner_test

import (
	"context"
	"fmt"
	"math"

	"smart"
	"smart/space"
	"smart/tuner"
)

// bowl times a setting by its distance from bx=64, by=4 in log2, plus 0.5 ms with shared memory.
type bowl struct{}

func (bowl) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	dx, dy := math.Log2(float64(q.Setting["bx"]))-6, math.Log2(float64(q.Setting["by"]))-2
	t := 1 + dx*dx + dy*dy + 0.5*float64(q.Setting["shared"])
	return smart.Measurement{Setting: q.Setting, Status: smart.StatusOK, TimeMs: t, Source: smart.Simulated}, nil
}

// bowlProblem is a constrained space (threads per block at most 1024) timed by bowl.
func bowlProblem() tuner.Problem {
	sp, err := space.New(context.Background(), []space.Param{
		{Name: "bx", Values: space.PowersOfTwo(1, 1024)},
		{Name: "by", Values: space.PowersOfTwo(1, 1024), Constraints: []space.Constraint{{
			Name: "bx*by <= 1024", Reads: []string{"bx", "by"}, Fn: func(v []int) bool { return v[0]*v[1] <= 1024 }}}},
		{Name: "shared", Values: space.Bool()},
	})
	if err != nil {
		panic(err)
	}
	return tuner.Problem{Variants: []tuner.Variant{{Space: sp}}, Evaluator: bowl{}}
}

// Search tunes a constrained space (threads per block at most 1024) against an Evaluator; the
// exhaustive search evaluates each valid setting once and returns the fastest.
func ExampleSearch() {
	p := bowlProblem()
	res, err := tuner.Search(context.Background(), p, tuner.Budget{}, tuner.Exhaustive{}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s in %.1f ms after %d evaluations (%s)\n", res.Method, res.Best.Setting, res.Best.Value, res.Evaluations, res.Stop)
	// Output: exhaustive: bx=64,by=4,shared=0 in 1.0 ms after 132 evaluations (done)
}

// Bayes stops at a target time: it reaches the bowl's minimum in a fraction of the 132
// settings the exhaustive search runs.
func ExampleBayes() {
	res, err := tuner.Search(context.Background(), bowlProblem(), tuner.Budget{Target: 1}, &tuner.Bayes{}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s in %.1f ms (%s), fewer than 40 evaluations: %v\n", res.Method, res.Best.Setting, res.Best.Value, res.Stop, res.Evaluations < 40)
	// Output: bayes: bx=64,by=4,shared=0 in 1.0 ms (target), fewer than 40 evaluations: true
}

// Descent walks from the best of 8 random settings to the bowl's minimum, one parameter one
// value at a time.
func ExampleDescent() {
	res, err := tuner.Search(context.Background(), bowlProblem(), tuner.Budget{}, &tuner.Descent{Samples: 8}, 1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %s in %.1f ms (%s), fewer than 60 evaluations: %v\n", res.Method, res.Best.Setting, res.Best.Value, res.Stop, res.Evaluations < 60)
	// Output: descent: bx=64,by=4,shared=0 in 1.0 ms (done), fewer than 60 evaluations: true
}
