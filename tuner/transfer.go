package tuner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"smart"
	"smart/dataset"
)

// Transfer is an Evaluator that predicts a setting's time on a GPU nobody measured it on from
// the measurements of the same kernel on other GPUs: the geometric mean of Objective over the
// sources that ran the setting successfully, a failure where none did. It ranks the settings of
// a space (what a search's prior needs); it does not scale times from one GPU to another.
type Transfer struct {
	Sources   []smart.Evaluator               // each answers for one other GPU
	Objective func(smart.Measurement) float64 // the number compared; nil means TimeMs
	// What names the data behind the prediction, e.g. "imported measurements on MI250X, W7800".
	What string
}

// Evaluate implements smart.Evaluator.
func (t Transfer) Evaluate(ctx context.Context, q smart.Query) (smart.Measurement, error) {
	sum, n := 0.0, 0
	for i, src := range t.Sources {
		m, err := src.Evaluate(ctx, q)
		if errors.Is(err, dataset.ErrNotMeasured) {
			continue // that GPU's data lacks the setting: it says nothing
		}
		if err != nil {
			return smart.Measurement{}, fmt.Errorf("transfer source %d: %w", i+1, err)
		}
		if v := objectiveOf(m, t.Objective); v > 0 && !math.IsInf(v, 1) {
			sum += math.Log(v)
			n++
		}
	}
	out := smart.Measurement{OC: q.OC, Setting: q.Setting.Clone(), GPU: q.GPU, Source: smart.Predicted,
		Device: "the geometric mean of " + t.What}
	if n == 0 {
		out.Status, out.Error = smart.StatusLaunchError, "failed on every source GPU"
		return out, nil
	}
	out.Status = smart.StatusOK
	out.TimeMs = math.Exp(sum / float64(n))
	out.MeanMs = out.TimeMs
	return out, nil
}

// TransferFrom is the Transfer of Kernel Tuner files of one kernel on other GPUs, minimising
// Kernel Tuner's objective (the mean time).
func TransferFrom(files []*KernelTuner) Transfer {
	t := Transfer{Objective: MeanTime}
	var devs []string
	for _, k := range files {
		t.Sources = append(t.Sources, k.Replay)
		devs = append(devs, k.Device)
	}
	t.What = fmt.Sprintf("imported measurements on %s", strings.Join(devs, ", "))
	return t
}
