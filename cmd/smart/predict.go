package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"smart/app"
	"smart/dataset/gpuinfo"
	"smart/internal/cliflag"
	"smart/predict"
)

func runPredict(ctx context.Context, e *env, args []string) error {
	var s app.PredictSettings
	var transfer, asJSON bool
	var weight float64
	fs, rest, err := parse(e, "predict", args, func(fs *flag.FlagSet) {
		fs.StringVar(&s.GPU, "gpu", "", "GPU name or alias from the catalogue (default: the GPU NVML finds)")
		fs.StringVar(&s.Catalog, "catalog", "", "GPU catalogue file merged over the built-in one")
		fs.BoolVar(&asJSON, "json", false, "print one JSON object per stencil, one per line (JSON Lines)")
		fs.IntVar(&s.Candidates, "candidates", 0, fmt.Sprintf("most probable OC classes whose OCs are searched on the GPU, however improbable, and more\nwhile they hold fewer OCs with a valid setting than are searched in depth (unset: %d, each\nafter the first at least %g probable; as many as the classifier has: every OC)", predict.DefaultClasses, predict.DefaultMinProbability))
		fs.IntVar(&s.Samples, "samples", 192, "random settings scored per OC searched in depth, before the descent")
		fs.BoolVar(&s.AllGPUs, "all-gpus", false, "put every catalogued GPU in the table, not only those the models were trained on and those with a price")
		fs.BoolVar(&transfer, "transfer", true, "search a GPU without measurements of its own with the runtime model of the nearest GPU measured, scaled by the analytic model;\nfalse: with the simulated default")
		fs.Var((*cliflag.Paths)(&s.Models), "model", "model file (smart train) to use instead of the default of its task and dimensions; repeatable")
		fs.Float64Var(&weight, "analytic-weight", predict.DefaultAnalyticWeight, "weight w of the calibrated analytic model in the order of the candidates, each ranked by t^(1-w) a^w\n(t the runtime model's time, a the analytic model's; 0: the runtime model alone)")
	})
	switch {
	case err != nil:
		return err
	case len(rest) == 0:
		return usagef("give a stencil file, a directory of them or an embedded sample name")
	case s.GPU == "" && cliflag.Given(fs, "gpu"): // left out, it is the GPU NVML finds
		return usagef("--gpu \"\": names no GPU; name one (smart gpus lists them), or leave --gpu out on a machine with an NVIDIA GPU")
	case s.Candidates == 0 && cliflag.Given(fs, "candidates"): // 0 keeps the default; given, it is a mistake
		return usagef("--candidates 0: search at least 1 OC class")
	case s.Samples == 0: // 0 is the default budget's; the flag's default is that number
		return usagef("--samples 0: score 1 to %d settings", app.MaxSamples)
	}
	s.NoTransfer = !transfer
	if cliflag.Given(fs, "analytic-weight") {
		s.AnalyticWeight = &weight
	}
	p, gpu, inputs, err := s.Open(rest, e.stdin)
	if errors.Is(err, gpuinfo.ErrNoGPU) {
		return usagef("no NVIDIA GPU found on this machine; name the GPU to predict for with --gpu (smart gpus lists them)")
	}
	var unread *app.UnreadError // reported with the stencils that fail to predict
	if !errors.As(err, &unread) && err != nil {
		return settingFlag(fs, err, map[string]string{"Models": "--model"})
	}
	var preds []*predict.Prediction
	err = p.PredictAll(ctx, inputs, gpu, streamed(e, "predict", len(inputs), asJSON, &preds))
	if unread != nil {
		err = errors.Join(unread, err)
	}
	// The stencils that failed are reported after those that did not (PredictAll goes on).
	var out error
	switch {
	case asJSON || len(preds) == 0:
	case len(inputs) == 1:
		out = preds[0].WriteText(e.stdout, s.AllGPUs)
	default:
		out = predict.WritePredictionRows(e.stdout, preds)
	}
	return errors.Join(out, err)
}
