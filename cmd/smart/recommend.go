package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"smart/app"
	"smart/internal/cliflag"
	"smart/predict"
)

// recommendFlags name the flag of each field of app.RecommendSettings named otherwise.
var recommendFlags = map[string]string{"Models": "--model"}

func runRecommend(ctx context.Context, e *env, args []string) error {
	var r app.RecommendSettings
	var gpuList string
	var asJSON bool
	fs, rest, err := parse(e, "recommend", args, func(fs *flag.FlagSet) {
		fs.StringVar(&gpuList, "gpus", "", "comma-separated GPUs to rank (default: those the models were trained on and those with a price)")
		fs.BoolVar(&r.Predict.AllGPUs, "all-gpus", false, "rank every catalogued GPU (smart gpus) where --gpus names none")
		fs.StringVar(&r.Have, "have", "", "the GPU you have, to compare against")
		fs.Float64Var(&r.Workload.Hours, "hours", 0, "price renting for this many hours instead of a number of steps")
		fs.StringVar(&r.HTML, "html", "", "write an HTML report with charts to this file (replacing only a report of smart's, or with --force)")
		fs.BoolVar(&r.Replace, "force", false, "overwrite the --html file even if it is not a report smart wrote")
		fs.StringVar(&r.Predict.Catalog, "catalog", "", "GPU catalogue file merged over the built-in one")
		fs.BoolVar(&asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
		fs.Int64Var(&r.Workload.Steps, "steps", 0, "time steps to price (default: the stencil's steps)")
		fs.Var((*cliflag.Paths)(&r.Predict.Models), "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
	})
	r.GPUs = app.SplitNames(gpuList)
	switch {
	case err != nil:
		return err
	case len(rest) == 0:
		return usagef("give a stencil file, a directory of them or an embedded sample name")
	case len(r.GPUs) == 0 && cliflag.Given(fs, "gpus"): // left out, it ranks the default GPUs
		return usagef("--gpus %q: names no GPU; give GPUs separated by commas, e.g. --gpus a100,h100 (smart gpus lists them), or leave --gpus out", gpuList)
	case r.Have == "" && cliflag.Given(fs, "have"):
		return usagef("--have \"\": names no GPU; name the GPU you have (smart gpus lists them), or leave --have out")
	case r.Workload.Hours == 0 && cliflag.Given(fs, "hours"): // 0 prices the stencil's steps
		return usagef("--hours 0: must be positive")
	case r.HTML == "" && cliflag.Given(fs, "html"):
		return usagef("--html \"\": names no file; give the report's file name, or leave --html out")
	}
	recs, err := recommend(ctx, e, fs, r, rest, asJSON)
	if len(recs) == 0 {
		return err
	}
	// The stencils that failed are reported after those that did not (RecommendAll goes on).
	var out error
	switch {
	case asJSON:
	case len(recs) == 1 && err == nil:
		out = recs[0].WriteText(e.stdout)
	default:
		out = predict.WriteRecommendationRows(e.stdout, recs)
	}
	if out == nil && r.HTML != "" {
		failed := flatten(err)
		if ctx.Err() != nil {
			for i, f := range failed {
				failed[i] = interrupted(f)
			}
		}
		if out = predict.WriteHTMLFile(r.HTML, recs, failed, time.Now()); out == nil {
			fmt.Fprintf(e.stderr, "wrote %s\n", r.HTML)
		}
	}
	return errors.Join(out, err)
}

// recommend ranks the GPUs for every stencil of paths, printing each as JSON as it comes with
// --json. A GPU or model that cannot be used is a usage error (exit 2), before any prediction.
func recommend(ctx context.Context, e *env, fs *flag.FlagSet, r app.RecommendSettings, paths []string, asJSON bool) ([]*predict.Recommendation, error) {
	p, inputs, err := r.Open(paths, e.stdin)
	var ge *predict.GPUNameError
	switch {
	case errors.As(err, &ge) && len(ge.Others) > 0: // each would be a row "not predicted"
		return nil, usagef("%w: name NVIDIA GPUs (smart gpus lists them)", settingFlag(fs, err, recommendFlags))
	case errors.As(err, new(*app.UnreadError)): // reported with the stencils that fail to predict
	case err != nil:
		return nil, settingFlag(fs, err, recommendFlags)
	}
	unread := err
	var recs []*predict.Recommendation
	err = p.RecommendAll(ctx, inputs, r.GPUs, r.Have, r.Workload, streamed(e, "recommend", len(inputs), asJSON, &recs))
	if unread != nil {
		err = errors.Join(unread, err)
	}
	return recs, err
}

// flatten lists the errors err joins (errors.Join, an *app.UnreadError of several files), each
// once: the stencils that failed, for the report.
func flatten(err error) []error {
	switch e := err.(type) {
	case nil:
		return nil
	case interface{ Unwrap() []error }:
		var out []error
		for _, one := range e.Unwrap() {
			out = append(out, flatten(one)...)
		}
		return out
	case *app.UnreadError:
		return flatten(e.Err)
	}
	return []error{err}
}
