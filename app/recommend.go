package app

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"smart/internal/atomicfile"
	"smart/predict"
)

// MaxHours bounds the hours a recommendation prices, a century of renting: the steps done in
// them, and their cost, must stay finite.
const MaxHours = 876600

// MaxSteps bounds the steps a recommendation prices: a century of steps of a microsecond each,
// more than any run rents.
const MaxSteps = 3_155_760_000_000_000

// RecommendSettings are what smart recommend ranks and prices: the predictor (Catalog, Models
// and AllGPUs of Predict), the GPUs to rank, the GPU the user has and the workload.
type RecommendSettings struct {
	Predict PredictSettings
	// GPUs are the GPUs to rank; nil: those the models were trained on and those with a price,
	// or every catalogued GPU with Predict.AllGPUs.
	GPUs     []string
	Have     string // the GPU the user has, to compare against; "" for none
	Workload predict.Workload
	// HTML is the report file the caller will write (predict.WriteHTMLFile); Check refuses one
	// that holds something other than a report smart wrote, unless Replace.
	HTML    string
	Replace bool
}

// Check refuses a workload that cannot be priced and GPUs named along with all of them, each
// as a *SettingError of its field, and the predictor's settings as PredictSettings.Check does.
func (r RecommendSettings) Check() error {
	switch w := r.Workload; {
	case w.Steps < 0:
		return wrong("Steps", fmt.Sprint(w.Steps), "must not be negative (0: the stencil's steps)")
	case w.Steps > MaxSteps:
		return wrong("Steps", fmt.Sprint(w.Steps), "give at most %d (a century of microsecond steps), or price hours instead", int64(MaxSteps))
	case !(w.Hours >= 0): // NaN too
		return wrong("Hours", fmt.Sprint(w.Hours), "must be positive")
	case w.Hours > MaxHours:
		return wrong("Hours", fmt.Sprint(w.Hours), "give at most %d (a century)", MaxHours)
	case w.Steps > 0 && w.Hours > 0:
		return wrong("Hours", "", "price a number of steps or of hours, not both")
	case r.Predict.AllGPUs && len(r.GPUs) > 0:
		return wrong("AllGPUs", "", "ranks every GPU; leave it out to rank only the GPUs named")
	}
	return errors.Join(checkReplace("HTML", r.HTML, r.Replace, atomicfile.Kind{What: "a report", Ours: predict.IsReportFile}),
		r.Predict.Check())
}

// Open checks r, opens its predictor and looks up the GPUs to rank and the user's in its
// catalogue (one that cannot be ranked is a *SettingError of GPUs or Have), then reads the
// stencils of paths (InputsFor), all before any prediction.
func (r RecommendSettings) Open(paths []string, stdin io.Reader) (*predict.Predictor, []predict.Input, error) {
	if err := r.Check(); err != nil {
		return nil, nil, err
	}
	p, err := r.Predict.Predictor()
	if err != nil {
		return nil, nil, err
	}
	var ge *predict.GPUNameError
	switch err := p.CheckGPUNames(r.GPUs, r.Have); {
	case errors.As(err, &ge) && ge.Have:
		return nil, nil, &SettingError{Field: "Have", Err: ge.Err, Wrong: true}
	case ge != nil:
		return nil, nil, &SettingError{Field: "GPUs", Err: ge, Wrong: true}
	case err != nil:
		return nil, nil, err
	}
	ins, err := InputsFor(p, paths, stdin)
	return p, ins, err
}

// SplitNames reads a comma-separated list of names, such as GPUs, dropping the spaces around
// each and the empty ones.
func SplitNames(list string) []string {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return names
}
