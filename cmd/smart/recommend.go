package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strings"
	"time"

	"smart/app"
	"smart/predict"
)

// maxHours bounds --hours: a century of renting.
const maxHours = 876600

// recommendOpts are the flags of the command.
type recommendOpts struct {
	predict app.PredictSettings // Catalog, Models and AllGPUs
	steps   int64
	gpuList string
	have    string
	hours   float64
	htmlOut string
	force   bool
	asJSON  bool
}

func (o *recommendOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.gpuList, "gpus", "", "comma-separated GPUs to rank (default: those the models were trained on and those with a price)")
	fs.BoolVar(&o.predict.AllGPUs, "all-gpus", false, "rank every catalogued GPU (smart gpus) where --gpus names none")
	fs.StringVar(&o.have, "have", "", "the GPU you have, to compare against")
	fs.Float64Var(&o.hours, "hours", 0, "price renting for this many hours instead of a number of steps")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report with charts to this file (replacing only a report of smart's, or with --force)")
	fs.BoolVar(&o.force, "force", false, "overwrite the --html file even if it is not a report smart wrote")
	fs.StringVar(&o.predict.Catalog, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
}

func runRecommend(ctx context.Context, e *env, args []string) error {
	var o recommendOpts
	fs := newFlags(e, "recommend")
	o.register(fs)
	fs.Int64Var(&o.steps, "steps", 0, "time steps to price (default: the stencil's steps)")
	fs.Var((*dirList)(&o.predict.Models), "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	gpus, err := o.check(fs, rest)
	if err != nil {
		return err
	}
	p, err := o.predict.Predictor()
	if err != nil {
		return err
	}
	if err := checkGPUNames(p, gpus, o.have); err != nil {
		return err
	}
	inputs, err := app.PredictInputs(rest, e.stdin)
	if err != nil {
		return err
	}
	if err := p.Models.CheckGiven(inputs); err != nil {
		return usagef("--model %v", err)
	}
	recs, err := o.recommend(ctx, e, p, inputs, gpus)
	if err != nil {
		return err
	}
	switch {
	case o.asJSON:
	case len(recs) == 1:
		err = recs[0].WriteText(e.stdout)
	default:
		err = predict.WriteRecommendationRows(e.stdout, recs)
	}
	if err != nil {
		return err
	}
	if o.htmlOut != "" {
		if err := predict.WriteHTMLFile(o.htmlOut, recs, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", o.htmlOut)
	}
	return nil
}

// check refuses flags that cannot work together and --html that names another file; it
// returns the GPUs of --gpus.
func (o *recommendOpts) check(fs *flag.FlagSet, rest []string) ([]string, error) {
	switch {
	case len(rest) == 0:
		return nil, usagef("give a stencil file, a directory of them or an embedded sample name")
	case o.steps < 0 || !(o.hours >= 0) || math.IsInf(o.hours, 1), o.hours == 0 && flagsGiven(fs, "hours"): // NaN too
		return nil, usagef("--steps and --hours must be positive")
	case o.hours > maxHours: // the steps done in them, and their cost, must stay finite
		return nil, usagef("--hours is %g; give at most %g (a century)", o.hours, float64(maxHours))
	case o.steps > 0 && o.hours > 0:
		return nil, usagef("give --steps or --hours, not both")
	case o.predict.AllGPUs && o.gpuList != "":
		return nil, usagef("give --gpus or --all-gpus, not both")
	}
	var gpus []string
	for _, g := range strings.Split(o.gpuList, ",") {
		if g = strings.TrimSpace(g); g != "" {
			gpus = append(gpus, g)
		}
	}
	if o.htmlOut != "" {
		if err := checkOutput("--html", o.htmlOut, o.force, outputKind{"a report", predict.IsReportFile}); err != nil {
			return nil, err
		}
	}
	return gpus, nil
}

// recommend ranks the GPUs for every input, printing each as JSON as it comes with --json.
func (o *recommendOpts) recommend(ctx context.Context, e *env, p *predict.Predictor, inputs []predict.Input, gpus []string) ([]*predict.Recommendation, error) {
	bar := newProgress(e, "recommend", len(inputs))
	var recs []*predict.Recommendation
	err := p.RecommendAll(ctx, inputs, gpus, o.have, predict.Workload{Steps: o.steps, Hours: o.hours}, func(i int, r *predict.Recommendation) error {
		if len(inputs) > 1 {
			bar.Update(i + 1)
		}
		recs = append(recs, r)
		if o.asJSON {
			return writeJSON(e, r)
		}
		return nil
	})
	return recs, err
}

// checkGPUNames looks up the GPUs named on the command line before any prediction, so that a
// misspelt one is a usage error (exit 2) as in tune, not a failure of the first stencil.
func checkGPUNames(p *predict.Predictor, gpus []string, have string) error {
	var ge *predict.GPUNameError
	switch err := p.CheckGPUNames(gpus, have); {
	case !errors.As(err, &ge):
		return err
	case len(ge.Others) > 0: // each would be a row "not predicted" and the ranking empty
		return usagef("--gpus names only %s; %v, so none can be predicted: name NVIDIA GPUs (smart gpus lists them)", strings.Join(ge.Others, ", "), ge.Err)
	case ge.Have:
		return usagef("--have: %w", ge.Err)
	}
	return usagef("--gpus: %w", ge.Err)
}
