package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"smart/app"
	"smart/predict"
)

// recommendOpts are the flags of the command.
type recommendOpts struct {
	app.RecommendSettings
	gpuList string
	htmlOut string
	force   bool
	asJSON  bool
}

func (o *recommendOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.gpuList, "gpus", "", "comma-separated GPUs to rank (default: those the models were trained on and those with a price)")
	fs.BoolVar(&o.Predict.AllGPUs, "all-gpus", false, "rank every catalogued GPU (smart gpus) where --gpus names none")
	fs.StringVar(&o.Have, "have", "", "the GPU you have, to compare against")
	fs.Float64Var(&o.Workload.Hours, "hours", 0, "price renting for this many hours instead of a number of steps")
	fs.StringVar(&o.htmlOut, "html", "", "write an HTML report with charts to this file (replacing only a report of smart's, or with --force)")
	fs.BoolVar(&o.force, "force", false, "overwrite the --html file even if it is not a report smart wrote")
	fs.StringVar(&o.Predict.Catalog, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
	fs.Int64Var(&o.Workload.Steps, "steps", 0, "time steps to price (default: the stencil's steps)")
	fs.Var((*dirList)(&o.Predict.Models), "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
}

// recommendFlags name the flag of each field of app.RecommendSettings.
var recommendFlags = map[string]string{"Steps": "--steps", "Hours": "--hours", "AllGPUs": "--all-gpus"}

func runRecommend(ctx context.Context, e *env, args []string) error {
	var o recommendOpts
	fs, rest, err := parse(e, "recommend", args, o.register)
	if err == nil {
		err = o.check(fs, rest)
	}
	if err != nil {
		return err
	}
	p, err := o.Predict.Predictor()
	if err != nil {
		return err
	}
	if err := checkGPUNames(p, o.GPUs, o.Have); err != nil {
		return err
	}
	inputs, err := app.PredictInputs(rest, e.stdin)
	if err != nil {
		return err
	}
	if err := p.Models.CheckGiven(inputs); err != nil {
		return usagef("--model %v", err)
	}
	recs, err := o.recommend(ctx, e, p, inputs)
	switch {
	case err != nil || o.asJSON:
	case len(recs) == 1:
		err = recs[0].WriteText(e.stdout)
	default:
		err = predict.WriteRecommendationRows(e.stdout, recs)
	}
	if err != nil || o.htmlOut == "" {
		return err
	}
	if err := predict.WriteHTMLFile(o.htmlOut, recs, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s\n", o.htmlOut)
	return nil
}

// check refuses flags that cannot work together and --html that names another file, and reads
// the GPUs of --gpus.
func (o *recommendOpts) check(fs *flag.FlagSet, rest []string) error {
	o.GPUs = app.SplitNames(o.gpuList)
	switch {
	case len(rest) == 0:
		return usagef("give a stencil file, a directory of them or an embedded sample name")
	case o.Workload.Hours == 0 && flagsGiven(fs, "hours"): // 0 prices the stencil's steps
		return usagef("--hours 0: must be positive")
	}
	if err := o.Check(); err != nil {
		return settingFlag(err, recommendFlags)
	}
	if o.htmlOut == "" {
		return nil
	}
	return checkOutput("--html", o.htmlOut, o.force, outputKind{"a report", predict.IsReportFile})
}

// recommend ranks the GPUs for every input, printing each as JSON as it comes with --json.
func (o *recommendOpts) recommend(ctx context.Context, e *env, p *predict.Predictor, inputs []predict.Input) ([]*predict.Recommendation, error) {
	bar := newProgress(e, "recommend", len(inputs))
	var recs []*predict.Recommendation
	err := p.RecommendAll(ctx, inputs, o.GPUs, o.Have, o.Workload, func(i int, r *predict.Recommendation) error {
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
