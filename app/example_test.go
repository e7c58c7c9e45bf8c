package app_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"smart"
	"smart/app"
	"smart/generator"
	"smart/tuner"
)

// A Go user tunes the 7-point Jacobi stencil under streaming and retiming for a simulated A100
// with Bayesian optimisation and records every run in a data set, which a second search with the
// same settings resumes: it gets the runs it asks for again from the record instead of running
// them.
func ExampleTune() {
	dir, _ := os.MkdirTemp("", "tune")
	defer os.RemoveAll(dir)
	st, err := generator.NamedStencil("j3d7pt", 0, 0)
	for run := 1; run <= 2 && err == nil; run++ {
		t := app.Tune{Evaluator: "sim", Stencil: st, GPU: "a100", OCs: []smart.Combination{smart.Combination(smart.ST).With(smart.RT)},
			Strategy: "bayes", Seed: 1,
			Budget: tuner.Budget{Evaluations: 30}, Record: filepath.Join(dir, "runs")}
		tg, err := t.Open(context.Background())
		if err != nil {
			panic(err)
		}
		res, err := tg.Search(context.Background())
		fmt.Printf("run %d: %s under %s, %.3f ms, %d of %d evaluations from the record (%v)\n", run, res.Best.Setting,
			tg.Problem.Variants[res.Best.Variant].OC, res.Best.Value, tg.Recorded(), res.Evaluations, errors.Join(err, tg.Close()))
	}
	// Output:
	// run 1: bx=4,by=256,bz=1,shared=0,const=1,sd=3,sb=1,ufx=1,ufy=1,ufz=1 under ST_RT, 1.629 ms, 0 of 30 evaluations from the record (<nil>)
	// run 2: bx=4,by=256,bz=1,shared=0,const=1,sd=3,sb=1,ufx=1,ufy=1,ufz=1 under ST_RT, 1.629 ms, 30 of 30 evaluations from the record (<nil>)
}
