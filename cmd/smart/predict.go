package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"smart"
	"smart/app"
	"smart/dataset/gpuinfo"
	"smart/predict"
)

// predictOpts are the flags of the command.
type predictOpts struct {
	predict  app.PredictSettings
	transfer bool // !predict.NoTransfer
	asJSON   bool
}

func (o *predictOpts) register(fs *flag.FlagSet) {
	fs.StringVar(&o.predict.GPU, "gpu", "", "GPU name or alias from the catalogue (default: the GPU NVML finds)")
	fs.StringVar(&o.predict.Catalog, "catalog", "", "GPU catalogue file merged over the built-in one")
	fs.BoolVar(&o.asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
	fs.IntVar(&o.predict.Candidates, "candidates", 0, fmt.Sprintf("most probable OC classes whose OCs are searched on the GPU. Unset: all %d OCs where the runtime model\nis trained on measurements (of that GPU, or with --transfer of another: the H100's) and the classifier is not, else %d classes", len(smart.Combinations()), predict.DefaultClasses))
	fs.IntVar(&o.predict.Samples, "samples", 192, "random settings scored per OC searched in depth, before the descent")
	fs.BoolVar(&o.predict.AllGPUs, "all-gpus", false, "put every catalogued GPU in the table, not only those the models were trained on and those with a price")
	fs.BoolVar(&o.transfer, "transfer", true, "search a GPU without measurements of its own with the runtime model of the nearest GPU measured, scaled by the analytic model;\nfalse: with the simulated default")
	fs.Var((*dirList)(&o.predict.Models), "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
}

// predictFlags name the flag of each field of app.PredictSettings.
var predictFlags = map[string]string{"GPU": "--gpu", "Candidates": "--candidates", "Samples": "--samples"}

func runPredict(ctx context.Context, e *env, args []string) error {
	var o predictOpts
	fs, rest, err := parse(e, "predict", args, o.register)
	if err != nil {
		return err
	}
	p, gpu, err := o.predictor(fs, rest)
	if err != nil {
		return err
	}
	inputs, err := app.PredictInputs(rest, e.stdin)
	if err != nil {
		return err
	}
	if err := p.Models.CheckGiven(inputs); err != nil {
		return usagef("--model %v", err)
	}
	var bar *progress
	if len(inputs) > 1 {
		bar = newProgress(e, "predict", len(inputs))
	}
	var preds []*predict.Prediction
	err = p.PredictAll(ctx, inputs, gpu, func(i int, pr *predict.Prediction) error {
		if bar != nil {
			bar.Update(i + 1)
		}
		if o.asJSON {
			return writeJSON(e, pr)
		}
		preds = append(preds, pr)
		return nil
	})
	switch {
	case err != nil || o.asJSON:
		return err
	case len(preds) == 1:
		return preds[0].WriteText(e.stdout, o.predict.AllGPUs)
	}
	return predict.WritePredictionRows(e.stdout, preds)
}

// predictor checks the flags and sets up the predictor and the GPU they name.
func (o *predictOpts) predictor(fs *flag.FlagSet, rest []string) (*predict.Predictor, string, error) {
	switch s := o.predict; {
	case len(rest) == 0:
		return nil, "", usagef("give a stencil file, a directory of them or an embedded sample name")
	case s.Candidates == 0 && flagsGiven(fs, "candidates"): // unset, 0 is the predictor's choice
		return nil, "", usagef("--candidates 0: search at least 1 OC class")
	case s.Samples == 0: // 0 is the default budget's; the flag's default is that number
		return nil, "", usagef("--samples 0: score 1 to %d settings", app.MaxSamples)
	}
	o.predict.NoTransfer = !o.transfer
	p, err := o.predict.Predictor()
	if err != nil {
		return nil, "", settingFlag(err, predictFlags)
	}
	gpu, err := o.predict.SearchGPU(p.Catalog)
	if errors.Is(err, gpuinfo.ErrNoGPU) {
		return nil, "", usagef("no NVIDIA GPU found on this machine; name the GPU to predict for with --gpu (smart gpus lists them)")
	}
	return p, gpu, settingFlag(err, predictFlags)
}
